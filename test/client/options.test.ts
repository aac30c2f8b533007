/**
 * The client's settings: the documented defaults, the environment read only where no option is
 * given, on/off variables read strictly, and a configuration error that says exactly what to fix.
 */
import { describe, expect, it } from 'vitest';
import { TrackingClient, TrackingConfigError } from '../../src/index.js';
import { resolveOptions, type TrackingClientOptions } from '../../src/client/options.js';

const BASE = { apiKey: 'opt-key-271828', baseUrl: 'http://127.0.0.1:9' } satisfies TrackingClientOptions;

function configError(options: TrackingClientOptions): TrackingConfigError {
  try {
    new TrackingClient(options);
  } catch (error) {
    expect(error).toBeInstanceOf(TrackingConfigError);
    return error as TrackingConfigError;
  }
  throw new Error('expected a TrackingConfigError');
}

describe('defaults', () => {
  it('are the documented ones when nothing is set', () => {
    expect(resolveOptions({ ...BASE, env: {} })).toEqual({
      enabled: true,
      debug: false,
      apiKey: BASE.apiKey,
      baseUrl: BASE.baseUrl,
      platformNames: { directMessage: 'twitter', messenger: 'facebook' },
      allowReferralEvent: false,
      maxQueueSize: 10_000,
      maxConcurrency: 256,
      requestTimeoutMs: 10_000,
      maxAttempts: Infinity,
      maxRetryDurationMs: 90_000,
      initialBackoffMs: 250,
      maxBackoffMs: 5_000,
      maxRetryAfterMs: 30_000,
      closeTimeoutMs: 5_000,
      maxBodyBytes: 1024 * 1024,
      maxPersistBytes: 50 * 1024 * 1024,
    });
  });

  it('an option given wins over its default, and allowReferralEvent is on only when true', () => {
    const resolved = resolveOptions({ ...BASE, env: {}, maxAttempts: 2, maxBodyBytes: 10, platformNames: { messenger: 'fb_page' }, allowReferralEvent: true });
    expect(resolved).toMatchObject({ maxAttempts: 2, maxBodyBytes: 10, platformNames: { directMessage: 'twitter', messenger: 'fb_page' }, allowReferralEvent: true });
    expect(resolveOptions({ ...BASE, env: {}, allowReferralEvent: 'yes' as unknown as boolean }).allowReferralEvent).toBe(false);
  });

  it('names each numeric option and its default when it is not a positive number', () => {
    const defaults: Record<string, number> = {
      maxQueueSize: 10_000,
      maxConcurrency: 256,
      requestTimeoutMs: 10_000,
      maxAttempts: Infinity,
      maxRetryDurationMs: 90_000,
      initialBackoffMs: 250,
      maxBackoffMs: 5_000,
      maxRetryAfterMs: 30_000,
      closeTimeoutMs: 5_000,
      maxBodyBytes: 1_048_576,
      maxPersistBytes: 52_428_800,
    };
    for (const [name, value] of Object.entries(defaults)) {
      // maxAttempts alone may be Infinity (its default): no cap but maxRetryDurationMs.
      const expected = name === 'maxAttempts' ? 'a positive number, or Infinity' : 'a positive number';
      for (const wrong of [0, -1, Number.NaN, Number.NEGATIVE_INFINITY, '5', ...(name === 'maxAttempts' ? [] : [Number.POSITIVE_INFINITY])]) {
        const error = configError({ ...BASE, [name]: wrong });
        expect(error.message).toBe(`Option ${name} must be ${expected} (default ${value}).`);
        expect(error.issues).toEqual([{ path: name, expected, received: typeof wrong }]);
      }
    }
    expect(resolveOptions({ ...BASE, env: {}, maxAttempts: Number.POSITIVE_INFINITY }).maxAttempts).toBe(Infinity);
    expect(resolveOptions({ ...BASE, env: {}, requestTimeoutMs: 0.5 }).requestTimeoutMs).toBe(0.5);
  });
});

describe('the environment', () => {
  it('is read for the key and the base URL only when no option gives them', () => {
    const env = { TRACKING_API_KEY: 'env-key-1', TRACKING_BASE_URL: 'http://env.example' };
    expect(resolveOptions({ env })).toMatchObject({ apiKey: 'env-key-1', baseUrl: 'http://env.example' });
    expect(resolveOptions({ ...BASE, env })).toMatchObject({ apiKey: BASE.apiKey, baseUrl: BASE.baseUrl });
  });

  it('is process.env when no env option is given', () => {
    const saved = { key: process.env.TRACKING_API_KEY, url: process.env.TRACKING_BASE_URL };
    process.env.TRACKING_API_KEY = 'process-env-key';
    process.env.TRACKING_BASE_URL = 'http://process-env.example';
    try {
      expect(resolveOptions({})).toMatchObject({ apiKey: 'process-env-key', baseUrl: 'http://process-env.example' });
    } finally {
      if (saved.key === undefined) delete process.env.TRACKING_API_KEY;
      else process.env.TRACKING_API_KEY = saved.key;
      if (saved.url === undefined) delete process.env.TRACKING_BASE_URL;
      else process.env.TRACKING_BASE_URL = saved.url;
    }
  });

  it('TRACKING_ENABLED turns the client off with false, 0, no or off (any case, spaces around), and leaves it on with true, 1, yes, on or empty', () => {
    for (const off of ['false', '0', 'no', 'off', ' OFF ', 'No']) expect(resolveOptions({ env: { TRACKING_ENABLED: off } }).enabled).toBe(false);
    for (const on of ['true', '1', 'yes', 'on', ' True ', '']) expect(resolveOptions({ ...BASE, env: { TRACKING_ENABLED: on } }).enabled).toBe(true);
  });

  it('TRACKING_DEBUG turns debug on with 1, true, yes, on or debug, and off with 0, false, no, off or empty', () => {
    for (const on of ['1', 'true', 'yes', 'on', 'debug', ' DEBUG ']) expect(resolveOptions({ ...BASE, env: { TRACKING_DEBUG: on } }).debug).toBe(true);
    for (const off of ['0', 'false', 'no', 'off', '', '  ']) expect(resolveOptions({ ...BASE, env: { TRACKING_DEBUG: off } }).debug).toBe(false);
  });

  it('the options enabled and debug win over the environment, which is then not read', () => {
    expect(resolveOptions({ ...BASE, enabled: true, debug: false, env: { TRACKING_ENABLED: 'false', TRACKING_DEBUG: '1' } })).toMatchObject({ enabled: true, debug: false });
    expect(resolveOptions({ ...BASE, enabled: false, debug: true, env: { TRACKING_ENABLED: 'true', TRACKING_DEBUG: '0' } })).toMatchObject({ enabled: false, debug: true });
  });

  it('a TRACKING_DEBUG that is neither on nor off says debug means on too, and shows at most 40 characters of it', () => {
    const error = configError({ ...BASE, env: { TRACKING_DEBUG: 'verbose' } });
    expect(error.message).toBe('TRACKING_DEBUG is "verbose", which is neither on nor off: set it to true or false (1/0, yes/no and on/off work too, and debug means on), or remove it.');
    expect(error.issues).toEqual([{ path: 'TRACKING_DEBUG', expected: 'on or off (true/false, 1/0, yes/no, on/off, debug)', received: '"verbose"' }]);
    const long = 'x'.repeat(41);
    const cut = configError({ ...BASE, env: { TRACKING_ENABLED: long } });
    expect(cut.issues[0].received).toBe(`"${'x'.repeat(40)}…"`);
    expect(cut.issues[0].expected).toBe('on or off (true/false, 1/0, yes/no, on/off)');
    const forty = 'y'.repeat(40);
    expect(configError({ ...BASE, env: { TRACKING_ENABLED: forty } }).issues[0].received).toBe(`"${forty}"`);
  });
});

describe('a client that is off', () => {
  it('needs no key or URL and uses none', () => {
    expect(resolveOptions({ enabled: false, env: {} })).toMatchObject({ enabled: false, apiKey: 'tracking-disabled', baseUrl: 'http://127.0.0.1' });
    expect(resolveOptions({ enabled: false, apiKey: '<API_KEY>', baseUrl: 'nope', env: {} })).toMatchObject({ apiKey: 'tracking-disabled', baseUrl: 'http://127.0.0.1' });
  });
});

describe('what a configuration error says', () => {
  it('no key, or an empty one: names TRACKING_API_KEY and where a key comes from', () => {
    for (const apiKey of [undefined, '']) {
      const error = configError({ apiKey, baseUrl: BASE.baseUrl, env: {} });
      expect(error.message).toBe(
        'No API key: set the TRACKING_API_KEY environment variable, or pass { apiKey } to the TrackingClient. A key comes with each bot you create in the analytics dashboard.',
      );
      expect(error.issues).toEqual([{ path: 'apiKey', expected: "the bot's API key (env TRACKING_API_KEY)", received: 'missing' }]);
    }
  });

  it('a placeholder key: says it is not a real key', () => {
    const error = configError({ ...BASE, apiKey: '<API_KEY>' });
    expect(error.message).toBe("The API key is a placeholder (such as <API_KEY>), not a real key: put the bot's key in TRACKING_API_KEY or the apiKey option.");
  });

  it('no base URL, or an empty one: names TRACKING_BASE_URL and the local endpoint', () => {
    for (const baseUrl of [undefined, '']) {
      const error = configError({ apiKey: BASE.apiKey, baseUrl, env: {} });
      expect(error.message).toBe(
        'No tracking endpoint: set the TRACKING_BASE_URL environment variable, or pass { baseUrl } to the TrackingClient (for the bundled local endpoint, run `npx botbuilder-conversation-analytics-endpoint serve` and use the address it prints).',
      );
      expect(error.issues).toEqual([{ path: 'baseUrl', expected: "the endpoint's base URL (env TRACKING_BASE_URL)", received: 'missing' }]);
    }
  });

  it('a base URL that is not an absolute http(s) URL is refused; one in any case, with a path, is taken', () => {
    for (const baseUrl of ['ftp://x', 'http://', 'http:///path', 'http:// space', '127.0.0.1:3979', 'see http://example.com', 'http://exa mple.com', 'x:http://example.com']) {
      const error = configError({ ...BASE, baseUrl });
      expect(error.message).toBe('baseUrl (TRACKING_BASE_URL) must be an absolute http:// or https:// URL, such as http://127.0.0.1:3979.');
      expect(error.issues).toEqual([{ path: 'baseUrl', expected: 'an absolute http(s) URL', received: 'not an http(s) URL' }]);
    }
    for (const baseUrl of ['HTTPS://Example.com/analytics', 'http://127.0.0.1:3979', 'https://h']) expect(resolveOptions({ ...BASE, baseUrl }).baseUrl).toBe(baseUrl);
  });

  it('platformNames: lowercase letters, digits, - and _, not sms or universal, and two different values', () => {
    for (const bad of ['Twitter', 'dm chat', '', 'sms', 'universal', 'dm.chat', 5]) {
      const error = configError({ ...BASE, platformNames: { directMessage: bad as string } });
      expect(error.message).toBe('platformNames.directMessage must be a lowercase platform value (letters, digits, - and _) other than sms and universal (default twitter).');
      expect(error.issues).toEqual([{ path: 'platformNames.directMessage', expected: 'a lowercase platform value', received: 'invalid' }]);
    }
    expect(configError({ ...BASE, platformNames: { messenger: 'x!' } }).message).toContain('(default facebook)');
    expect(resolveOptions({ ...BASE, platformNames: { directMessage: 'dm_2-x', messenger: 'fb' } }).platformNames).toEqual({ directMessage: 'dm_2-x', messenger: 'fb' });
    const same = configError({ ...BASE, platformNames: { directMessage: 'chat', messenger: 'chat' } });
    expect(same.message).toBe('platformNames.directMessage and platformNames.messenger must differ: records of the two platforms would be indistinguishable.');
    expect(same.issues).toEqual([{ path: 'platformNames', expected: 'two different platform values', received: 'the same value twice' }]);
  });

  it('two problems or more: one error numbering each message, with every issue', () => {
    const error = configError({ env: { TRACKING_ENABLED: 'maybe' }, maxAttempts: 0 });
    expect(error.message).toBe(
      '4 settings need fixing: (1) TRACKING_ENABLED is "maybe", which is neither on nor off: set it to true or false (1/0, yes/no and on/off work too), or remove it. ' +
        '(2) No API key: set the TRACKING_API_KEY environment variable, or pass { apiKey } to the TrackingClient. A key comes with each bot you create in the analytics dashboard. ' +
        '(3) No tracking endpoint: set the TRACKING_BASE_URL environment variable, or pass { baseUrl } to the TrackingClient (for the bundled local endpoint, run `npx botbuilder-conversation-analytics-endpoint serve` and use the address it prints). ' +
        '(4) Option maxAttempts must be a positive number, or Infinity (default Infinity).',
    );
    expect(error.issues.map((i) => i.path)).toEqual(['TRACKING_ENABLED', 'apiKey', 'baseUrl', 'maxAttempts']);
    expect(error.name).toBe('TrackingConfigError');
  });
});
