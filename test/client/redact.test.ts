/**
 * Secret redaction as a user meets it: the API key and access tokens are masked in URLs, JSON,
 * bearer headers and any text that comes back from elsewhere, whatever their length and encoding,
 * and an error kept as a delivery error's `cause` carries none of them.
 */
import util from 'node:util';
import { describe, expect, it } from 'vitest';
import { TrackingClient, TrackingDeliveryError, type Transport } from '../../src/index.js';
import { excerpt, KnownSecrets, redactJson, redactUrl, safeCause, scrub } from '../../src/client/redact.js';

describe('secret query parameters', () => {
  it('masks apiKey, api_key and access_token in a URL, in any case, up to the next parameter, fragment, space or quote', () => {
    expect(redactUrl('http://h/track?apiKey=k-1&platform=sms')).toBe('http://h/track?apiKey=***&platform=sms');
    expect(redactUrl('http://h/?x=1&api_key=abc#frag')).toBe('http://h/?x=1&api_key=***#frag');
    expect(redactUrl('GET /me?ACCESS_TOKEN=EAA1 HTTP/1.1')).toBe('GET /me?ACCESS_TOKEN=*** HTTP/1.1');
    expect(redactUrl('{"url":"http://h/?apiKey=k9"}')).toBe('{"url":"http://h/?apiKey=***"}');
    expect(redactUrl("url='http://h/?apiKey=k9'")).toBe("url='http://h/?apiKey=***'");
    expect(redactUrl('first ?apiKey=1 then &access_token=2')).toBe('first ?apiKey=*** then &access_token=***');
  });

  it('leaves other parameters alone, even one whose name ends like a secret one', () => {
    const url = 'http://h/?myapiKey=visible&platform=sms&notaccess_token=shown';
    expect(redactUrl(url)).toBe(url);
  });
});

describe('secret JSON fields', () => {
  it('masks "apiKey" : "…" with spaces (or line breaks) around the colon, and every secret field of the text', () => {
    expect(redactJson('{"apiKey" : "k-1","text":"hi"}')).toBe('{"apiKey" : "***","text":"hi"}');
    expect(redactJson('{"api_key":\n\t"k-2"}')).toBe('{"api_key":\n\t"***"}');
    expect(redactJson('{"access_token":"a","x":{"access_token":"b"}}')).toBe('{"access_token":"***","x":{"access_token":"***"}}');
  });

  it('masks a JSON value whole, escaped quotes and backslashes included, and stops at its closing quote', () => {
    expect(redactJson('{"access_token":"EA\\"A\\\\B","text":"visible"}')).toBe('{"access_token":"***","text":"visible"}');
  });

  it('leaves fields that are not secrets alone', () => {
    const text = '{"apiKeyHint":"visible","token_type":"bearer","key":"k"}';
    expect(redactJson(text)).toBe(text);
  });
});

describe('bearer tokens', () => {
  it('masks Bearer with one space or two, and every character a token may hold', () => {
    expect(scrub('Authorization: Bearer eyJ.a_b~c+d/e=f-g rest')).toBe('Authorization: Bearer *** rest');
    expect(scrub('Authorization: Bearer  two-spaces')).toBe('Authorization: Bearer  ***');
    expect(scrub('Bearer a, then Bearer\tb')).toBe('Bearer ***, then Bearer\t***');
  });
});

describe('secrets masked wherever they appear', () => {
  it('masks a one-character key everywhere: a secret of any length is masked, only an empty one is none', () => {
    expect(scrub('key k in a kite', ['k'])).toBe('***ey *** in a ***ite');
    expect(scrub('nothing to hide', [''])).toBe('nothing to hide');
    expect(scrub('nothing to hide', ['', 'hide'])).toBe('nothing to ***');
  });

  it('masks a long secret whole, even when a shorter one is part of it', () => {
    expect(scrub('the long one sk-live-123 and the short one sk', ['sk', 'sk-live-123'])).toBe('the long one *** and the short one ***');
    expect(scrub('sk-live-123', ['sk-live-123', 'sk'])).toBe('***');
  });

  it('masks a secret with control characters in each of its JSON escapes (\\b \\f \\n \\r \\t), raw and percent-encoded', () => {
    const secret = 'a\bb\fc\nd\re\tf\\g';
    const json = JSON.stringify(secret).slice(1, -1);
    expect(json).toBe('a\\bb\\fc\\nd\\re\\tf\\\\g');
    for (const form of [secret, json, encodeURIComponent(secret), encodeURIComponent(secret).toLowerCase()]) {
      expect(scrub(`<${form}>`, [secret])).toBe('<***>');
    }
    for (const ch of ['\b', '\f', '\n', '\r', '\t', '\\', '"']) {
      const one = `x${ch}y`;
      expect(scrub(`<${JSON.stringify(one).slice(1, -1)}>`, [one])).toBe('<***>');
    }
    // JSON may escape a slash too.
    expect(scrub('<x\\/y>', ['x/y'])).toBe('<***>');
  });

  it('masks a secret with characters beyond ASCII, percent-encoded as UTF-8 and \\u-escaped as UTF-16', () => {
    const secret = 'clé😀';
    const escaped = Array.from({ length: secret.length }, (_, i) => `\\u${secret.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
    for (const form of [secret, encodeURIComponent(secret), escaped, escaped.toUpperCase().replace(/\\U/g, '\\u')]) {
      expect(scrub(`(${form})`, [secret])).toBe('(***)');
    }
  });

  it('masks a space in a secret as a space, %20 or +, and a + in it only as + or %2B', () => {
    const secret = 'a b+c';
    for (const form of ['a b+c', 'a%20b%2Bc', 'a+b%2bc']) expect(scrub(`[${form}]`, [secret])).toBe('[***]');
    expect(scrub('[a b c]', [secret])).toBe('[a b c]');
    // A + stands for a space only, never for another character.
    expect(scrub('k+y', ['key'])).toBe('k+y');
  });

  it('treats the regular-expression characters of a secret literally', () => {
    const secret = 'k.*+?^${}()|[]\\/';
    expect(scrub(`<${secret}>`, [secret])).toBe('<***>');
    expect(scrub('<kXXXX>', ['k.*'])).toBe('<kXXXX>');
  });
});

describe('the secrets one client knows', () => {
  it('masks the key and every token added since, including one added after a first scrub', () => {
    const known = new KnownSecrets('key-1');
    expect(known.list).toEqual(['key-1']);
    expect(scrub('key-1 tok-1', known)).toBe('*** tok-1');
    known.add('tok-1');
    expect(scrub('key-1 tok-1', known)).toBe('*** ***');
    known.add('tok-1');
    expect(known.list).toEqual(['key-1', 'tok-1']);
    known.add('tok-2');
    expect(scrub('tok-2 tok-1', known)).toBe('*** ***');
  });
});

describe('an excerpt of an echoed answer', () => {
  it('masks secrets in the whole text before it cuts, so a secret across the cut is masked whole', () => {
    expect(excerpt(`${'x'.repeat(8)}sk-live-123 more`, 10, ['sk-live-123'])).toBe('xxxxxxxx**…');
  });

  it('drops what its end holds of a secret the text was cut inside, down to part of one character\'s encoding', () => {
    const secret = 'a/b é😀';
    for (const cut of ['a', 'a/', 'a%2', 'a%2F', 'a\\/b', 'a\\u002', 'a/b+', 'a/b %C3', 'a/b%20%c3%a9', 'a/b é\ud83d', 'a/b é\\ud83d\\ude0', `a/b é${'😀'[0]}`]) {
      expect(excerpt(`kept: ${cut}`, 100, [secret]), cut).toBe('kept: …');
    }
  });

  it('drops even one character that could start a secret, keeps any other end, and marks nothing when nothing was left out', () => {
    expect(excerpt('bad request: ab', 100, ['abc'])).toBe('bad request: …');
    expect(excerpt('bad request: bc', 100, ['abc'])).toBe('bad request: bc');
    expect(excerpt('{"error":"bad"}', 100, ['abc'])).toBe('{"error":"bad"}');
  });

  it('masks a secret JSON field whose value the cut left unfinished, whichever secret it holds', () => {
    expect(excerpt('{"access_token":"EAAB-unknown-token', 100)).toBe('{"access_token":"***');
    expect(excerpt('{"apiKey" : "k-\\', 100)).toBe('{"apiKey" : "***');
  });
});

describe('an error kept as a cause', () => {
  it('keeps the name, the code and the scrubbed message, and nothing else: no URL, header or config property', () => {
    const source = Object.assign(new Error('request to http://h/track?apiKey=key-123456 failed: token tok-abcdef'), {
      name: 'AxiosError',
      code: 'ECONNRESET',
      config: { url: 'http://h/track?apiKey=key-123456', headers: { authorization: 'Bearer tok-abcdef' } },
    });
    const safe = safeCause(source, ['key-123456', 'tok-abcdef']);
    expect(safe).toBeInstanceOf(Error);
    expect(safe.name).toBe('AxiosError');
    expect((safe as { code?: string }).code).toBe('ECONNRESET');
    expect(safe.message).toBe('request to http://h/track?apiKey=*** failed: token ***');
    expect(safe.stack).toBe('AxiosError: request to http://h/track?apiKey=*** failed: token ***');
    expect(Object.keys(safe).sort()).toEqual(['code', 'name']);
    expect(util.inspect(safe, { showHidden: true, depth: 5 })).not.toMatch(/key-123456|tok-abcdef/);
  });

  it('turns a thrown value that is no error into a plain Error with its text, scrubbed', () => {
    const fromString = safeCause('failed with secret-777', ['secret-777']);
    expect(fromString.name).toBe('Error');
    expect(fromString.message).toBe('failed with ***');
    expect(fromString.stack).toBe('Error: failed with ***');
    expect('code' in fromString).toBe(false);
    expect(safeCause(null).message).toBe('null');
    expect(safeCause(undefined).message).toBe('undefined');
    const odd = safeCause({ name: 42, message: 7, code: 5 });
    expect(odd.name).toBe('Error');
    expect(odd.message).toBe('[object Object]');
    expect('code' in odd).toBe(false);
  });

  it('given no secrets, keeps a message as it is but for secret parameters, fields and bearer tokens', () => {
    expect(safeCause(new Error('connect ECONNREFUSED 127.0.0.1:9 for /track?apiKey=k')).message).toBe('connect ECONNREFUSED 127.0.0.1:9 for /track?apiKey=***');
    expect(scrub('plain words, Bearer tok')).toBe('plain words, Bearer ***');
  });

  it('leaves no key or token in a delivery error\'s cause, its message or its stack, when a transport fails with both in its error', async () => {
    const key = 'cause-key-9f8e7d';
    const token = 'EAAGcause+token/42';
    const transport: Transport = {
      async send(request) {
        const error = new Error(`socket hang up sending ${request.url} with ${request.body} (Bearer ${token})`) as Error & { code: string; request: unknown };
        error.name = 'HttpLibraryError';
        error.code = 'ECONNRESET';
        error.request = { url: request.url, body: request.body, headers: { authorization: `Bearer ${token}`, 'x-api-key': key } };
        error.stack = `${error.name}: ${error.message}\n    at send (${request.url})`;
        throw error;
      },
    };
    const client = new TrackingClient({ apiKey: key, baseUrl: 'http://127.0.0.1:9', transport, logger: false, maxAttempts: 1 });
    const error = await client.messenger
      .logOutgoing({ json: { recipient: { id: 'psid-1' }, message: { text: 'hi' } }, qs: { access_token: token }, uri: 'https://graph.example/me/messages' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await client.close();
    expect(error).toBeInstanceOf(TrackingDeliveryError);
    const cause = (error as TrackingDeliveryError).cause as Error & { code?: string };
    expect(cause).toBeInstanceOf(Error);
    expect(cause.name).toBe('HttpLibraryError');
    expect(cause.code).toBe('ECONNRESET');
    expect(cause.message).toContain('socket hang up sending http://127.0.0.1:9/track?');
    expect(cause.message).toContain('apiKey=***');
    const renderings = [
      cause.message,
      String(cause.stack),
      util.inspect(cause, { showHidden: true, depth: 10 }),
      JSON.stringify(cause),
      (error as Error).message,
      String((error as Error).stack),
      util.inspect(error, { showHidden: true, depth: 10 }),
    ];
    for (const text of renderings) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(token);
      expect(text).not.toContain(encodeURIComponent(token));
    }
  });

  it("masks the key and an access token that a transport's error names bare (not as apiKey= or Bearer) in the delivery error's cause", async () => {
    const key = 'bare-key-5c4b3a';
    const token = 'EAAGbare/token+7';
    const transport: Transport = {
      async send() {
        // No parameter name or scheme before either secret: only the client's own list of secrets can find them.
        throw Object.assign(new Error(`proxy refused key ${key} and page token ${token} (also ${encodeURIComponent(token)})`), { code: 'ECONNRESET' });
      },
    };
    const client = new TrackingClient({ apiKey: key, baseUrl: 'http://127.0.0.1:9', transport, logger: false, maxAttempts: 1 });
    const error = (await client.messenger
      .logOutgoing({ json: { recipient: { id: 'psid-1' }, message: { text: 'hi' } }, qs: { access_token: token }, uri: 'https://graph.example/me/messages' })
      .catch((e: unknown) => e)) as TrackingDeliveryError;
    await client.close();
    expect(error).toMatchObject({ name: 'TrackingDeliveryError', reason: 'retries-exhausted' });
    expect((error.cause as Error).message).toBe('proxy refused key *** and page token *** (also ***)');
    expect(String((error.cause as Error).stack)).toBe('Error: proxy refused key *** and page token *** (also ***)');
  });
});
