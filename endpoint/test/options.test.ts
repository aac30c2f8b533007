/**
 * The endpoint's options on their own (`resolveOptions`): every default, and every option that
 * cannot work refused with a `TrackingEndpointError` that names the option and what it takes.
 * Starting an endpoint goes through the same function; these cases are the ones no running
 * endpoint shows (a default, a boundary, the exact message).
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TrackingEndpointError } from '../src/errors.js';
import { DEFAULT_DATABASE_FILE, DEFAULT_PORT, LEGACY_DATA_FILE, resolveOptions, type TrackingEndpointOptions } from '../src/options.js';

/** The error `resolveOptions(options)` throws (fails the test when it throws none). */
function refusal(options: TrackingEndpointOptions): TrackingEndpointError {
  try {
    resolveOptions(options);
  } catch (error) {
    expect(error).toBeInstanceOf(TrackingEndpointError);
    return error as TrackingEndpointError;
  }
  throw new Error(`resolveOptions(${JSON.stringify(options)}) did not throw`);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('defaults', () => {
  it('listens on 127.0.0.1:3979, accepts any key there, keeps SQLite in .tracking-data and imports the legacy NDJSON file', () => {
    const options = resolveOptions();
    expect(options).toMatchObject({
      port: 3979,
      host: '127.0.0.1',
      loopback: true,
      apiKeys: [],
      readers: [],
      trustProxyUser: undefined,
      readerUsers: [],
      metricsToken: undefined,
      database: resolve(DEFAULT_DATABASE_FILE),
      importFrom: resolve(LEGACY_DATA_FILE),
      fsync: false,
      retentionDays: undefined,
      summaryIntervalMs: 60_000,
      maxBodyBytes: 1_048_576,
      maxBodyDepth: 64,
      platformNames: { directMessage: 'twitter', messenger: 'facebook' },
      allowReferralEvent: false,
      masking: { keepCardNumbers: false, mask: [] },
      requestTimeoutMs: 5_000,
      headersTimeoutMs: 3_000,
      keepAliveTimeoutMs: 5_000,
      maxReadWaitMs: 5_000,
      maxWriteWaitMs: 4_000,
      closeGraceMs: 2_000,
    });
    expect(DEFAULT_PORT).toBe(3979);
    expect(DEFAULT_DATABASE_FILE).toBe('.tracking-data/tracking.db');
    expect(LEGACY_DATA_FILE).toBe('.tracking-data/records.ndjson');
    expect(options.botNames.size).toBe(0);
    expect([...options.allowedHosts!]).toEqual(['127.0.0.1']);
  });

  it('logs to console.error unless given a log', () => {
    const printed: unknown[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void printed.push(line));
    resolveOptions().log('the database cannot be reached');
    expect(printed).toEqual(['the database cannot be reached']);
    const lines: string[] = [];
    resolveOptions({ log: (line) => lines.push(line) }).log('mine');
    expect(lines).toEqual(['mine']);
    expect(printed).toHaveLength(1);
  });

  it('takes what is given in place of each default', () => {
    const log = (): void => undefined;
    const options = resolveOptions({
      port: 0, fsync: true, retentionDays: 0.5, summaryIntervalMs: 0, maxBodyBytes: 1, maxBodyDepth: 1,
      platformNames: { messenger: 'msgr' }, allowReferralEvent: true, keepCardNumbers: true, mask: ['phone', 'email', 'phone'],
      requestTimeoutMs: 1, headersTimeoutMs: 1, keepAliveTimeoutMs: 1, maxReadWaitMs: 1, maxWriteWaitMs: 1, closeGraceMs: 0,
      readers: ['ann=t1'], trustProxyUser: 'X-User', readerUsers: ['bob'], log,
    });
    expect(options).toMatchObject({
      port: 0, fsync: true, retentionDays: 0.5, summaryIntervalMs: 0, maxBodyBytes: 1, maxBodyDepth: 1,
      platformNames: { directMessage: 'twitter', messenger: 'msgr' }, allowReferralEvent: true, masking: { keepCardNumbers: true, mask: ['phone', 'email'] },
      requestTimeoutMs: 1, headersTimeoutMs: 1, keepAliveTimeoutMs: 1, maxReadWaitMs: 1, maxWriteWaitMs: 1, closeGraceMs: 0,
      readers: ['ann=t1'], trustProxyUser: 'X-User', readerUsers: ['bob'],
    });
    expect(options.log).toBe(log);
    expect(resolveOptions({ platformNames: { directMessage: 'dm' } }).platformNames).toEqual({ directMessage: 'dm', messenger: 'facebook' });
    expect(resolveOptions({ port: 65_535, maxReadWaitMs: 60_000, maxWriteWaitMs: 9_000 })).toMatchObject({ port: 65_535, maxReadWaitMs: 60_000, maxWriteWaitMs: 9_000 });
  });

  it('never lets the headers take longer than the whole request', () => {
    expect(resolveOptions({ requestTimeoutMs: 1_000 }).headersTimeoutMs).toBe(1_000);
    expect(resolveOptions({ requestTimeoutMs: 1_000, headersTimeoutMs: 400 }).headersTimeoutMs).toBe(400);
    expect(resolveOptions({ requestTimeoutMs: 1_000, headersTimeoutMs: 4_000 }).headersTimeoutMs).toBe(1_000);
  });
});

describe('metricsToken', () => {
  it('is kept as given', () => {
    expect(resolveOptions({ metricsToken: 'scrape-1' }).metricsToken).toBe('scrape-1');
  });

  it('refuses an empty token, spaces around it, and a write key, never quoting it', () => {
    expect(() => resolveOptions({ metricsToken: ' ' })).toThrow(new TrackingEndpointError('metricsToken (--metrics-token) is empty; give a token of its own, or leave it out.'));
    expect(() => resolveOptions({ metricsToken: '' })).toThrow(/is empty/);
    expect(() => resolveOptions({ metricsToken: ' scrape-1' })).toThrow(new TrackingEndpointError('metricsToken (--metrics-token) starts or ends with a space; give it without.'));
    expect(() => resolveOptions({ metricsToken: 'scrape-1 ' })).toThrow(/starts or ends with a space/);
    expect(() => resolveOptions({ apiKeys: ['pizza=k-secret-1'], metricsToken: 'k-secret-1' })).toThrow(new TrackingEndpointError('metricsToken (--metrics-token) is one of the write keys (--key); give it a token of its own.'));
  });
});

describe('whole numbers', () => {
  it.each([
    ['port', 0], ['requestTimeoutMs', 1], ['headersTimeoutMs', 1], ['keepAliveTimeoutMs', 1], ['maxReadWaitMs', 1], ['maxWriteWaitMs', 1],
    ['summaryIntervalMs', 0], ['maxBodyBytes', 1], ['maxBodyDepth', 1], ['closeGraceMs', 0],
  ] as const)('%s takes %i and more, and refuses less, a fraction or an unsafe integer naming the option', (name, min) => {
    expect(() => resolveOptions({ [name]: min })).not.toThrow();
    for (const bad of [min - 1, min + 0.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(refusal({ [name]: bad }).message).toBe(`${name} must be a whole number of at least ${min}; got ${bad}.`);
    }
  });

  it('refuses a port above 65535', () => {
    expect(refusal({ port: 65_536 }).message).toBe('port must be between 0 and 65535; got 65536.');
  });

  it('retentionDays takes any number of days above 0, and refuses 0, less, NaN and Infinity', () => {
    expect(resolveOptions({ retentionDays: 30 }).retentionDays).toBe(30);
    expect(resolveOptions({ retentionDays: 0.01 }).retentionDays).toBe(0.01);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(refusal({ retentionDays: bad }).message).toBe(`retentionDays must be a number of days greater than 0; got ${bad}.`);
    }
  });
});

describe('database', () => {
  it('false keeps records in memory and imports nothing', () => {
    expect(resolveOptions({ database: false })).toMatchObject({ database: false, importFrom: undefined });
  });

  it('takes a PostgreSQL URL as it is, postgres:// or postgresql:// in any case', () => {
    for (const url of ['postgres://u:p@127.0.0.1:5432/db', 'postgresql://127.0.0.1/db', 'POSTGRES://127.0.0.1/db', 'PostgreSQL://127.0.0.1/db']) {
      expect(resolveOptions({ database: url })).toMatchObject({ database: url, importFrom: undefined });
    }
  });

  it('takes anything else as a file path from the working directory', () => {
    for (const path of ['data/tracking.db', 'backup/postgres://x', 'postgres:/x', 'a.ndjson.db', 'a.ndjsonx', '/tmp/abs.db']) {
      expect(resolveOptions({ database: path })).toMatchObject({ database: resolve(path), importFrom: undefined });
    }
  });

  it('takes a path ending in .ndjson as a file to import into the SQLite file of the same name ending in .db', () => {
    expect(resolveOptions({ database: 'old/records.ndjson' })).toMatchObject({ database: resolve('old/records.db'), importFrom: resolve('old/records.ndjson') });
    expect(resolveOptions({ database: 'OLD.NDJSON' })).toMatchObject({ database: resolve('OLD.db'), importFrom: resolve('OLD.NDJSON') });
    expect(resolveOptions({ database: 'a.ndjson.ndjson' })).toMatchObject({ database: resolve('a.ndjson.db') });
  });

  it('refuses an empty path', () => {
    for (const empty of ['', '   ']) {
      expect(refusal({ database: empty }).message).toBe('database must be a file path, a postgres:// URL, or false.');
    }
  });

  it('reads the earlier name dataFile when database is not given; database wins when both are', () => {
    expect(resolveOptions({ dataFile: 'legacy.db' }).database).toBe(resolve('legacy.db'));
    expect(resolveOptions({ dataFile: false }).database).toBe(false);
    expect(resolveOptions({ database: 'new.db', dataFile: 'legacy.db' }).database).toBe(resolve('new.db'));
    expect(resolveOptions({ database: false, dataFile: 'legacy.db' }).database).toBe(false);
    expect(resolveOptions({ database: undefined, dataFile: false }).database).toBe(false);
  });
});

describe('API keys', () => {
  it('names a bot with NAME=KEY, and a key without a name has none', () => {
    const options = resolveOptions({ apiKeys: ['pizza-bot=sk_live_1', 'sk_live_2', 'a.b_c-9=k=3', '=sk_4', '-x=sk_5', `${'n'.repeat(64)}=sk_6`, `${'n'.repeat(65)}=sk_7`, 'pasta='] });
    expect(options.apiKeys).toEqual(['sk_live_1', 'sk_live_2', 'k=3', '=sk_4', '-x=sk_5', 'sk_6', `${'n'.repeat(65)}=sk_7`, 'pasta=']);
    expect([...options.botNames]).toEqual([['sk_live_1', 'pizza-bot'], ['k=3', 'a.b_c-9'], ['sk_6', 'n'.repeat(64)]]);
  });

  it('never cuts a key at a line break to find a name in it', () => {
    const options = resolveOptions({ apiKeys: ['pizza=k1\nk2'] });
    expect(options.apiKeys).toEqual(['pizza=k1\nk2']);
    expect(options.botNames.size).toBe(0);
  });

  it('refuses a bot name given to two keys', () => {
    expect(refusal({ apiKeys: ['pizza=k1', 'pasta=k2', 'pizza=k3'] }).message).toBe('The bot name "pizza" is given to two keys; give each bot its own name.');
  });

  it('refuses a placeholder key, named or not', () => {
    expect(refusal({ apiKeys: ['k1', '<API_KEY>'] }).message).toBe('The API key "<API_KEY>" is a placeholder; give the bot\'s real key.');
    expect(refusal({ apiKeys: ['pizza=<API_KEY>'] }).message).toBe('The API key "<API_KEY>" is a placeholder; give the bot\'s real key.');
  });
});

describe('host and the names it answers to', () => {
  it('needs a key to listen on an address other machines can reach', () => {
    for (const host of ['0.0.0.0', '192.0.2.10', '::']) {
      expect(refusal({ host }).message).toBe(`Listening on ${host} exposes the endpoint to other machines: give at least one API key (--key or TRACKING_API_KEYS), or listen on 127.0.0.1.`);
      expect(resolveOptions({ host, apiKeys: ['k'] }).loopback).toBe(false);
    }
    expect(resolveOptions({ host: 'localhost' }).loopback).toBe(true);
  });

  it('answers the address it listens on and the names given (trimmed, in lowercase), besides loopback names', () => {
    expect([...resolveOptions({ host: '192.0.2.10', apiKeys: ['k'], allowedHosts: [' Tracking.Example ', '', '  '] }).allowedHosts!]).toEqual(['tracking.example', '192.0.2.10']);
    expect([...resolveOptions({ host: 'LocalHost' }).allowedHosts!]).toEqual(['localhost']);
  });

  it('answers an IPv6 address with and without brackets', () => {
    expect([...resolveOptions({ host: '::1' }).allowedHosts!]).toEqual(['::1', '[::1]']);
    expect([...resolveOptions({ host: 'FE80::1', apiKeys: ['k'] }).allowedHosts!]).toEqual(['fe80::1', '[fe80::1]']);
  });

  it('on every interface answers any name, unless names are given: then only those', () => {
    for (const host of ['0.0.0.0', '::', '']) {
      expect(resolveOptions({ host, apiKeys: ['k'] }).allowedHosts).toBeUndefined();
      expect(resolveOptions({ host, apiKeys: ['k'], allowedHosts: [''] }).allowedHosts).toBeUndefined();
      expect([...resolveOptions({ host, apiKeys: ['k'], allowedHosts: ['tracking.example'] }).allowedHosts!]).toEqual(['tracking.example']);
    }
  });
});

describe('platform names', () => {
  it('takes lowercase letters, digits, _ . and -', () => {
    expect(resolveOptions({ platformNames: { directMessage: 'x_1.dm-2', messenger: 'fb' } }).platformNames).toEqual({ directMessage: 'x_1.dm-2', messenger: 'fb' });
  });

  it.each([
    [{ directMessage: 'Twitter' }, 'Twitter', 'facebook'],
    [{ messenger: 'face book' }, 'twitter', 'face book'],
    [{ messenger: '!fb' }, 'twitter', '!fb'],
    [{ messenger: 'fb!' }, 'twitter', 'fb!'],
    [{ directMessage: '' }, '', 'facebook'],
    [{ directMessage: 'sms' }, 'sms', 'facebook'],
    [{ messenger: 'universal' }, 'twitter', 'universal'],
    [{ directMessage: 'universal' }, 'universal', 'facebook'],
    [{ messenger: 'sms' }, 'twitter', 'sms'],
    [{ directMessage: 'facebook' }, 'facebook', 'facebook'],
  ])('refuses %j', (platformNames, directMessage, messenger) => {
    expect(refusal({ platformNames }).message).toBe(`Platform names must be two different lowercase values other than "sms" and "universal"; got "${directMessage}" and "${messenger}".`);
  });
});

describe('mask', () => {
  it('takes email and phone, each once, and refuses anything else naming it', () => {
    expect(resolveOptions({ mask: ['email'] }).masking.mask).toEqual(['email']);
    expect(resolveOptions({ mask: ['email', 'email'] }).masking.mask).toEqual(['email']);
    expect(refusal({ mask: ['email', 'card' as never] }).message).toBe('mask takes "email" and "phone"; got "card".');
  });
});
