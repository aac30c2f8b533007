import { describe, expect, it } from 'vitest';
import { TrackingClient, TrackingConfigError, TrackingValidationError } from '../../src/index.js';

describe('configuration', () => {
  it('reads the API key and base URL from TRACKING_API_KEY and TRACKING_BASE_URL', async () => {
    const client = new TrackingClient({ env: { TRACKING_API_KEY: 'env-key-1', TRACKING_BASE_URL: 'http://127.0.0.1:9' }, logger: false });
    expect(client.messenger.platform).toBe('facebook');
    await client.close();
  });

  it('names TRACKING_API_KEY when no key is given', () => {
    const error = captureError(() => new TrackingClient({ env: { TRACKING_BASE_URL: 'http://127.0.0.1:9' } }));
    expect(error).toBeInstanceOf(TrackingConfigError);
    expect(error.message).toContain('TRACKING_API_KEY');
    expect((error as TrackingConfigError).issues[0].path).toBe('apiKey');
  });

  it('names TRACKING_BASE_URL when no base URL is given', () => {
    const error = captureError(() => new TrackingClient({ env: { TRACKING_API_KEY: 'k-12345' } }));
    expect(error).toBeInstanceOf(TrackingConfigError);
    expect(error.message).toContain('TRACKING_BASE_URL');
  });

  it('names every missing or invalid setting in one error, so a deployment is fixed in one go', () => {
    const error = captureError(() => new TrackingClient({ env: {}, maxQueueSize: -1 })) as TrackingConfigError;
    expect(error).toBeInstanceOf(TrackingConfigError);
    expect(error.issues.map((i) => i.path)).toEqual(['apiKey', 'baseUrl', 'maxQueueSize']);
    expect(error.message).toMatch(/^3 settings need fixing: \(1\) No API key.*TRACKING_API_KEY.*\(2\) No tracking endpoint.*TRACKING_BASE_URL.*\(3\) Option maxQueueSize/);
    const two = captureError(() => new TrackingClient({ apiKey: '<API_KEY>', baseUrl: 'ftp://x' })) as TrackingConfigError;
    expect(two.issues.map((i) => i.path)).toEqual(['apiKey', 'baseUrl']);
  });

  it('refuses an on/off variable that is neither, instead of guessing: TRACKING_ENABLED=ture does not mean on', () => {
    const error = captureError(() => new TrackingClient({ env: { TRACKING_ENABLED: 'ture', TRACKING_API_KEY: 'k-12345', TRACKING_BASE_URL: 'http://127.0.0.1:9' } })) as TrackingConfigError;
    expect(error).toBeInstanceOf(TrackingConfigError);
    expect(error.issues).toEqual([{ path: 'TRACKING_ENABLED', expected: expect.stringContaining('on or off'), received: '"ture"' }]);
    expect(error.message).toBe('TRACKING_ENABLED is "ture", which is neither on nor off: set it to true or false (1/0, yes/no and on/off work too), or remove it.');
    // The values it does take, in any case and with spaces around; empty is unset.
    for (const value of ['true', ' ON ', '1', 'yes', '']) {
      expect(() => new TrackingClient({ env: { TRACKING_ENABLED: value, TRACKING_DEBUG: value, TRACKING_API_KEY: 'k-12345', TRACKING_BASE_URL: 'http://127.0.0.1:9' }, logger: false })).not.toThrow();
    }
  });

  it('names every missing or invalid environment variable and option in one error: TRACKING_ENABLED, TRACKING_DEBUG, the key, the URL, platformNames', () => {
    const error = captureError(
      () => new TrackingClient({ env: { TRACKING_ENABLED: 'ture', TRACKING_DEBUG: 'verbose' }, platformNames: { directMessage: 'Twitter DM', messenger: 'sms' }, maxAttempts: 0 }),
    ) as TrackingConfigError;
    expect(error).toBeInstanceOf(TrackingConfigError);
    expect(error.issues.map((i) => i.path)).toEqual(['TRACKING_ENABLED', 'TRACKING_DEBUG', 'apiKey', 'baseUrl', 'platformNames.directMessage', 'platformNames.messenger', 'maxAttempts']);
    expect(error.message).toMatch(/^7 settings need fixing: \(1\) TRACKING_ENABLED is "ture".*\(2\) TRACKING_DEBUG is "verbose".*debug means on.*\(3\) No API key.*\(5\) platformNames\.directMessage must be.*\(6\) platformNames\.messenger must be.*\(7\) Option maxAttempts/);
    const same = captureError(() => new TrackingClient({ apiKey: 'k-12345', baseUrl: 'http://h', platformNames: { directMessage: 'chat', messenger: 'chat' } })) as TrackingConfigError;
    expect(same.issues.map((i) => i.path)).toEqual(['platformNames']);
  });

  it('reads TRACKING_DEBUG only when the debug option is not given, and TRACKING_ENABLED only when enabled is not', () => {
    expect(() => new TrackingClient({ env: { TRACKING_DEBUG: 'verbose', TRACKING_ENABLED: 'ture' }, debug: false, enabled: false, logger: false })).not.toThrow();
  });

  it('refuses a placeholder key such as <API_KEY> as a validation error naming apiKey', () => {
    const error = captureError(() => new TrackingClient({ apiKey: '<API_KEY>', baseUrl: 'http://127.0.0.1:9' }));
    expect(error).toBeInstanceOf(TrackingValidationError);
    expect(error).toBeInstanceOf(TrackingConfigError);
    expect((error as TrackingConfigError).issues).toEqual([expect.objectContaining({ path: 'apiKey', received: 'placeholder' })]);
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => new TrackingClient({ apiKey: 'k-12345', baseUrl: 'ftp://x' })).toThrow(/http:\/\/ or https:\/\//);
    expect(() => new TrackingClient({ apiKey: 'k-12345', baseUrl: '{base_url}' })).toThrow(TrackingConfigError);
  });

  it('refuses out-of-range numeric options, naming the option', () => {
    expect(() => new TrackingClient({ apiKey: 'k-12345', baseUrl: 'http://h', maxQueueSize: 0 })).toThrow(/maxQueueSize/);
    expect(() => new TrackingClient({ apiKey: 'k-12345', baseUrl: 'http://h', requestTimeoutMs: Number.NaN })).toThrow(/requestTimeoutMs/);
  });

  it('never puts the key in a config error', () => {
    const error = captureError(() => new TrackingClient({ apiKey: 'secret-key-xyz', baseUrl: 'nope' }));
    expect(JSON.stringify(error) + error.message + String(error.stack)).not.toContain('secret-key-xyz');
  });
});

function captureError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
