/**
 * Where refused and given-up records are reported (reporter.ts): the user's `onError` (which may
 * throw without breaking anything), or else the logger, once per run of identical failures, with
 * the reason and status as fields, and the counts of the rest summed up.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TrackingDeliveryError, TrackingError, TrackingValidationError, type Logger } from '../../src/index.js';
import { SafeLogger } from '../../src/client/logger.js';
import { Reporter, RUN_GAP_MS, SUMMARY_INTERVAL_MS } from '../../src/client/reporter.js';

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

function capturingLogger(lines: Line[]): Logger {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, message, fields });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

let clock = 0;
function reporter(lines: Line[], onError?: (error: TrackingError, record?: unknown) => void): Reporter {
  clock = 0;
  return new Reporter(onError, new SafeLogger(capturingLogger(lines), ['rep-key-1'], false), () => clock);
}

const outage = (status = 503) => new TrackingDeliveryError('retries-exhausted', `Gave up after 5 attempts (HTTP ${status}).`, { status });

afterEach(() => {
  vi.useRealTimers();
});

describe('with onError', () => {
  it('hands every failure to onError with the kind of record, and writes nothing', () => {
    const lines: Line[] = [];
    const seen: [string, unknown][] = [];
    const r = reporter(lines, (error, record) => seen.push([error.message, record]));
    r.report(outage(), 'sms incoming', { platform: 'sms', type: 'incoming' });
    r.report(outage(), 'sms incoming');
    r.reportLazily('queue-full', 'sms incoming', () => new TrackingDeliveryError('queue-full', 'full'));
    r.reportLazily('queue-full', 'sms incoming', () => new TrackingDeliveryError('queue-full', 'full again'));
    r.flush();
    expect(seen).toEqual([
      ['Gave up after 5 attempts (HTTP 503).', { platform: 'sms', type: 'incoming' }],
      ['Gave up after 5 attempts (HTTP 503).', undefined],
      ['full', undefined],
      ['full again', undefined],
    ]);
    expect(lines).toEqual([]);
  });

  it('keeps going when onError throws', () => {
    const lines: Line[] = [];
    let calls = 0;
    const r = reporter(lines, () => {
      calls++;
      throw new Error('handler bug');
    });
    expect(() => r.report(outage(), 'sms incoming')).not.toThrow();
    expect(() => r.report(outage(), 'sms incoming')).not.toThrow();
    expect(calls).toBe(2);
    expect(lines).toEqual([]);
  });
});

describe('without onError', () => {
  it('warns with the reason, the record kind and the status as fields; a refused key is an error', () => {
    const lines: Line[] = [];
    const r = reporter(lines);
    r.report(outage(502), 'sms incoming');
    r.report(new TrackingDeliveryError('unauthorized', 'The tracking endpoint refused the API key (HTTP 403).', { status: 403 }), 'sms outgoing');
    r.report(new TrackingDeliveryError('queue-full', 'The queue is full.'), 'sms incoming');
    expect(lines).toEqual([
      { level: 'warn', message: 'Gave up after 5 attempts (HTTP 502).', fields: { reason: 'retries-exhausted', record: 'sms incoming', status: 502 } },
      { level: 'error', message: 'The tracking endpoint refused the API key (HTTP 403).', fields: { reason: 'unauthorized', record: 'sms outgoing', status: 403 } },
      { level: 'warn', message: 'The queue is full.', fields: { reason: 'queue-full', record: 'sms incoming' } },
    ]);
  });

  it('keeps runs apart by status: a 503 run and a 502 run are each warned in full', () => {
    const lines: Line[] = [];
    const r = reporter(lines);
    r.report(outage(503), 'sms incoming');
    r.report(outage(502), 'sms incoming');
    r.report(outage(503), 'sms incoming');
    r.flush();
    expect(lines.map((l) => l.message)).toEqual([
      'Gave up after 5 attempts (HTTP 503).',
      'Gave up after 5 attempts (HTTP 502).',
      '1 more records were refused or given up (retries-exhausted, HTTP 503) since the last report',
    ]);
    expect(lines[2]).toMatchObject({ level: 'warn', fields: { reason: 'retries-exhausted, HTTP 503', count: 1 } });
  });

  it('keeps errors that are not delivery failures apart by message, up to 100 runs, then one run per error class', () => {
    const lines: Line[] = [];
    const r = reporter(lines);
    const invalid = (n: number) => new TrackingValidationError('sms incoming record', [{ path: `field${n}`, expected: 'a string', received: 'a number' }]);
    r.report(invalid(0), 'sms incoming');
    r.report(invalid(0), 'sms incoming');
    r.report(invalid(1), 'sms incoming');
    expect(lines).toHaveLength(2);
    expect(lines[0].fields).toEqual({ reason: 'TrackingValidationError', record: 'sms incoming' });
    for (let n = 2; n < 150; n++) r.report(invalid(n), 'sms incoming');
    // 100 runs kept apart by message; past that, the rest share one run (warned once in full).
    expect(lines).toHaveLength(101);
    r.report(invalid(0), 'sms incoming'); // its run is still going: counted
    expect(lines).toHaveLength(101);
    r.flush();
    const summaries = lines.slice(101).map((l) => l.message);
    expect(summaries).toContain('2 more records were refused or given up (TrackingValidationError) since the last report');
    expect(summaries).toContain('49 more records were refused or given up (TrackingValidationError) since the last report');
  });

  it('tells messages apart by their first 300 characters only', () => {
    const lines: Line[] = [];
    const r = reporter(lines);
    const long = (tail: string) => new TrackingError(`${'x'.repeat(300)}${tail}`);
    r.report(long('a'), 'deferred');
    r.report(long('b'), 'deferred');
    r.report(new TrackingError(`${'x'.repeat(299)}y`), 'deferred');
    expect(lines).toHaveLength(2);
  });

  it('sums a run up at most every 5 minutes while it goes on, and at its end', () => {
    const lines: Line[] = [];
    const r = reporter(lines);
    r.report(outage(), 'sms incoming');
    clock = SUMMARY_INTERVAL_MS - 1;
    r.report(outage(), 'sms incoming');
    expect(lines).toHaveLength(1);
    clock = SUMMARY_INTERVAL_MS;
    r.report(outage(), 'sms incoming');
    expect(lines.map((l) => l.message)).toEqual([
      'Gave up after 5 attempts (HTTP 503).',
      'still failing: 2 more records refused or given up (retries-exhausted, HTTP 503) since the last report, as reported above',
    ]);
    // Within 5 minutes of that summary: only counted.
    clock = 2 * SUMMARY_INTERVAL_MS - 1;
    r.report(outage(), 'sms incoming');
    expect(lines).toHaveLength(2);
    r.flush();
    expect(lines[2].message).toBe('1 more records were refused or given up (retries-exhausted, HTTP 503) since the last report');
    // flush() forgot the run: the next failure is warned in full; a flush with nothing counted writes nothing.
    r.report(outage(), 'sms incoming');
    expect(lines[3].message).toBe('Gave up after 5 attempts (HTTP 503).');
    r.flush();
    expect(lines).toHaveLength(4);
  });

  it('ends a run after exactly 5 minutes without such a failure, not before', () => {
    const lines: Line[] = [];
    const r = reporter(lines);
    r.report(outage(), 'sms incoming');
    clock = RUN_GAP_MS;
    r.report(outage(), 'sms incoming'); // a gap of exactly RUN_GAP_MS: the run goes on
    expect(lines).toHaveLength(2); // (the summary due at 5 minutes)
    expect(lines[1].message).toMatch(/^still failing: 1 more/);
    clock = 2 * RUN_GAP_MS + 1;
    r.report(outage(), 'sms incoming');
    expect(lines.map((l) => l.message.slice(0, 20))).toEqual(['Gave up after 5 atte', 'still failing: 1 mor', 'Gave up after 5 atte']);
  });

  it('counts lazy refusals into their run without making the error, and makes it when it starts a run', () => {
    const lines: Line[] = [];
    const r = reporter(lines);
    let made = 0;
    const refusal = () => {
      made++;
      return new TrackingDeliveryError('queue-full', 'The queue is full.');
    };
    for (let i = 0; i < 5; i++) r.reportLazily('queue-full', 'sms incoming', refusal);
    expect(made).toBe(1);
    r.flush();
    expect(lines.map((l) => l.message)).toEqual(['The queue is full.', '4 more records were refused or given up (queue-full) since the last report']);
  });

  it('uses the clock by default', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(0);
    const lines: Line[] = [];
    const r = new Reporter(undefined, new SafeLogger(capturingLogger(lines), [], false));
    r.report(outage(), 'sms incoming');
    vi.setSystemTime(RUN_GAP_MS + 1);
    r.report(outage(), 'sms incoming');
    expect(lines.map((l) => l.message)).toEqual(['Gave up after 5 attempts (HTTP 503).', 'Gave up after 5 attempts (HTTP 503).']);
  });
});
