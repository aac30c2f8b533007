import { describe, expect, it } from 'vitest';
import { SECRET_KEY, SECRET_PARAMETERS, SECRET_URL_PARAMETER } from '../../src/protocol/index.js';

// One list of what a secret is, shared by the client's log redaction, the middleware's copy of an
// activity and the endpoint's ingestion: a name missing here leaks there.

describe('secret names', () => {
  it("names the tracking API's own secrets: the bot's key and the page access token", () => {
    expect([...SECRET_PARAMETERS].sort()).toEqual(['access_token', 'apiKey', 'api_key']);
  });

  it.each([
    'token', 'accessToken', 'refresh_token', 'secret', 'clientSecret', 'password', 'userPassword', 'passwd', 'authorization',
    'Authorization', 'apiKey', 'api_key', 'api-key', 'apikey', 'X-API-KEY', 'credential', 'credentials', 'signature', 'cookie', 'Set-Cookie',
  ])('treats an object key named %j as a secret', (key) => {
    expect(SECRET_KEY.test(key)).toBe(true);
  });

  it.each(['text', 'userId', 'name', 'value', 'key', 'monkey', 'api', 'apiVersion', 'api.key', 'keyboard', 'author', 'id'])(
    'does not treat an object key named %j as a secret',
    (key) => {
      expect(SECRET_KEY.test(key)).toBe(false);
    },
  );

  it.each(['sig', 'signature', 'code', 'key', 'token', 'secret', 'password', 'auth', 't', 'apiKey', 'api_key', 'access_token', 'SIG', 'Token', 'APIKEY', 'T'])(
    'masks the URL parameter %j',
    (name) => {
      expect(SECRET_URL_PARAMETER.test(name)).toBe(true);
    },
  );

  it.each(['', 'page', 'q', 'tt', 'signal', 'sigs', 'xsig', 'codes', 'keys', 'tokens', 'author', 'authentication', 'sigsignature', 'sig|code', 'platform', 'v', 'type'])(
    'leaves the URL parameter %j visible: only a whole name that is a secret counts',
    (name) => {
      expect(SECRET_URL_PARAMETER.test(name)).toBe(false);
    },
  );
});
