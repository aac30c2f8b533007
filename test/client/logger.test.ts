/**
 * What reaches a user's logger, and what the default logger writes to stderr: every entry scrubbed
 * of the key, tokens and secret-named fields, a logger that throws never breaking anything, and
 * the stderr line's level filter and format.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SafeLogger, silentLogger, stderrLogger, type Logger } from '../../src/client/logger.js';
import { KnownSecrets } from '../../src/client/redact.js';
import { capture } from '../helpers/capture-logger.js';

const KEY = 'log-key-31415926';

describe("what the user's logger receives", () => {
  it('each level at its own method, the message and every string field scrubbed of the key', () => {
    const { logger, entries } = capture();
    const log = new SafeLogger(logger, [KEY], true);
    log.debug({ url: `http://h/track?apiKey=${KEY}` }, `debug ${KEY}`);
    log.info({ n: 1 }, `info ${KEY}`);
    log.warn({ text: `said ${KEY}` }, 'warn');
    log.error({}, 'error');
    expect(entries).toEqual([
      { level: 'debug', fields: { url: 'http://h/track?apiKey=***' }, message: 'debug ***' },
      { level: 'info', fields: { n: 1 }, message: 'info ***' },
      { level: 'warn', fields: { text: 'said ***' }, message: 'warn' },
      { level: 'error', fields: {}, message: 'error' },
    ]);
  });

  it('no debug entry unless debug is on', () => {
    const { logger, entries } = capture();
    const log = new SafeLogger(logger, [KEY], false);
    expect(log.debugEnabled).toBe(false);
    log.debug({}, 'not shown');
    log.info({}, 'shown');
    expect(entries.map((e) => e.message)).toEqual(['shown']);
    expect(new SafeLogger(logger, [KEY], true).debugEnabled).toBe(true);
  });

  it('fields named like secrets are masked whatever their value, at any depth up to four levels', () => {
    const { logger, entries } = capture();
    const log = new SafeLogger(logger, new KnownSecrets(KEY), false);
    log.warn(
      {
        password: 'hunter2',
        nested: { authorization: 'Basic abc', list: [{ cookie: 'c=1', plain: 'visible' }], count: 3, none: null },
        flag: true,
      },
      'm',
    );
    expect(entries[0].fields).toEqual({
      password: '***',
      nested: { authorization: '***', list: [{ cookie: '***', plain: 'visible' }], count: 3, none: null },
      flag: true,
    });
  });

  it('an error in a field is shown as its name and message, scrubbed, never with its stack or properties', () => {
    const { logger, entries } = capture();
    const log = new SafeLogger(logger, [KEY], false);
    const error = Object.assign(new TypeError(`bad ${KEY}`), { config: { apiKey: KEY } });
    log.warn({ error, list: [error] }, 'failed');
    expect(entries[0].fields).toEqual({ error: 'TypeError: bad ***', list: ['TypeError: bad ***'] });
  });

  it('stops descending past four levels: deeper objects are passed as they are', () => {
    const { logger, entries } = capture();
    const log = new SafeLogger(logger, [KEY], false);
    const deepest = { token: 'left-as-is' };
    log.warn({ a: { b: { c: { d: deepest, token: 'x' } } } }, 'deep');
    const fields = entries[0].fields as { a: { b: { c: { d: unknown; token: string } } } };
    expect(fields.a.b.c.token).toBe('***');
    expect(fields.a.b.c.d).toBe(deepest);
  });

  it('an entry whose fields refer to themselves still reaches the logger', () => {
    const { logger, entries } = capture();
    const log = new SafeLogger(logger, [KEY], false);
    const cyclic: Record<string, unknown> = { name: `n ${KEY}` };
    cyclic.self = cyclic;
    log.warn({ cyclic }, 'cycle');
    expect(entries).toHaveLength(1);
    expect((entries[0].fields.cyclic as { name: string }).name).toBe('n ***');
    const list: unknown[] = [`item ${KEY}`];
    list.push(list);
    log.warn({ list }, 'cyclic list');
    expect(entries).toHaveLength(2);
    expect((entries[1].fields.list as unknown[])[0]).toBe('item ***');
  });

  it('a logger that throws breaks nothing', () => {
    const throwing: Logger = {
      debug: () => {
        throw new Error('debug');
      },
      info: () => {
        throw new Error('info');
      },
      warn: () => {
        throw new Error('warn');
      },
      error: () => {
        throw new Error('error');
      },
    };
    const log = new SafeLogger(throwing, [KEY], true);
    expect(() => {
      log.debug({}, 'a');
      log.info({}, 'b');
      log.warn({}, 'c');
      log.error({}, 'd');
    }).not.toThrow();
  });

  it('the silent logger takes every level and writes nothing', () => {
    const written = captureStderr();
    for (const level of ['debug', 'info', 'warn', 'error'] as const) expect(silentLogger[level]({ a: 1 }, 'x')).toBeUndefined();
    expect(written).toEqual([]);
  });
});

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

function captureStderr(): string[] {
  const written: string[] = [];
  const original = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  restore = () => {
    process.stderr.write = original;
  };
  return written;
}

describe('the default logger (stderr)', () => {
  it('writes one line per entry at or above its level (warn by default), with the fields as JSON', () => {
    const written = captureStderr();
    const log = stderrLogger();
    log.debug({ a: 1 }, 'debug line');
    log.info({ a: 1 }, 'info line');
    log.warn({ a: 1, b: 'x' }, 'warn line');
    log.error({}, 'error line');
    restore?.();
    expect(written).toEqual(['[conversation-analytics] warn: warn line {"a":1,"b":"x"}\n', '[conversation-analytics] error: error line\n']);
  });

  it('writes debug and info lines when asked for that level, and only errors at error level', () => {
    const written = captureStderr();
    const debug = stderrLogger('debug');
    debug.debug({}, 'd');
    debug.info({}, 'i');
    const errorsOnly = stderrLogger('error');
    errorsOnly.warn({}, 'w');
    errorsOnly.error({}, 'e');
    const info = stderrLogger('info');
    info.debug({}, 'no');
    info.info({}, 'yes');
    restore?.();
    expect(written).toEqual(['[conversation-analytics] debug: d\n', '[conversation-analytics] info: i\n', '[conversation-analytics] error: e\n', '[conversation-analytics] info: yes\n']);
  });
});
