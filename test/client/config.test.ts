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
