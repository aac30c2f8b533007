/**
 * Faults between the client and a real local endpoint: 500/503 bursts, 429 with Retry-After,
 * connection resets, answers slower than the timeout, and outages (refused, or reset and
 * overflowing the queue) followed by recovery. Each scenario runs once (in beforeAll) with
 * debug logging on into a capturing logger; each test checks one thing a user would observe.
 * The summary table is printed at the end.
 */
import util from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unexpected } from '../../endpoint/test/helpers/endpoint-log.js';
import type { Logger } from '../../src/index.js';
import { API_KEY, CLIENT_OPTIONS, formatTable, PAGE_TOKEN, runScenario, SCENARIOS, type ScenarioReport, type ScenarioRun } from './scenario.js';

interface LogEntry {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function capturingLogger(entries: LogEntry[]): Logger {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void entries.push({ level, fields, message });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Every way a user might print an error. */
function renderings(error: unknown): string[] {
  const e = error as Error;
  return [String(e), e?.message, e?.stack, JSON.stringify(e), util.inspect(e, { depth: 10, showHidden: true }), util.inspect(e?.cause, { depth: 10, showHidden: true })].map((s) => s ?? '');
}

const reports: ScenarioReport[] = [];

afterAll(() => {
  if (reports.length > 0) console.log(`\nDelivery under faults (real endpoint behind a fault-injecting front):\n${formatTable(reports)}\n`);
});

describe.each(SCENARIOS)('under $name', (spec) => {
  let run: ScenarioRun;
  let report: ScenarioReport;
  const log: LogEntry[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    try {
      run = await runScenario(spec, { logger: capturingLogger(log), debug: true });
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    report = run.report;
    reports.push(report);
  }, 30_000);

  it('loses no record: each one logged is stored by the endpoint at least once, or was refused at once and reported', () => {
    // Traffic comes every 10 ms until recovery: a few hundred records on a quiet machine, fewer on a
    // busy one (late ticks); enough either way for the fault to hit (the retry checks below say it did).
    expect(report.logged).toBeGreaterThan(60);
    expect(report.lost).toBe(0);
    expect(report.failed).toBe(0);
    expect(report.strangers).toEqual([]);
    expect(report.deliveredButMissing).toEqual([]);
    expect(report.delivered + report.dropped).toBe(report.logged);
  });

  it('stores each record once: an attempt whose answer was lost after the endpoint stored it is retried with its Idempotency-Key, and not stored again', () => {
    expect(report.copyMismatches).toEqual([]);
    expect(report.duplicated).toBe(0);
  });

  it("keeps each user's records in the order they were logged (first copies)", () => {
    expect(report.orderViolations).toEqual([]);
  });

  it('keeps retries bounded: no record past maxAttempts, and no retry storm after recovery', () => {
    expect(report.maxAttemptsPerRecord).toBeGreaterThan(1); // the fault did cause retries
    expect(report.maxAttemptsPerRecord).toBeLessThanOrEqual(CLIENT_OPTIONS.maxAttempts);
    expect(report.pendingAtRecovery).toBeGreaterThan(0);
    expect(report.requestsAfterRecovery).toBeLessThanOrEqual(Math.ceil(1.25 * (report.pendingAtRecovery + report.loggedAfterRecovery)));
  });

  it('never holds more than maxQueueSize records, and reports each one it drops', () => {
    expect(report.peakQueued).toBeGreaterThan(0);
    expect(report.peakQueued).toBeLessThanOrEqual(report.maxQueueSize);
    expect(report.droppedReports).toBe(report.dropped);
    expect(report.droppedButStored).toEqual([]);
  });

  it('crashes nothing: every bot turn gets its reply, no unhandled rejection, no unexpected endpoint error', () => {
    expect(report.turns).toBeGreaterThan(15);
    expect(report.replies).toBe(report.turns);
    expect(unhandled).toEqual([]);
    expect(unexpected(report.endpointLog)).toEqual([]);
  });

  it('shows the API key and the access token nowhere, with debug logging on: not in any log entry nor any error', () => {
    // The paths were exercised: debug lines with masked URLs and bodies, and given-up probes.
    const logged = JSON.stringify(log) + util.inspect(log, { depth: 10 });
    expect(log.filter((e) => e.level === 'debug').length).toBeGreaterThan(0);
    expect(logged).toContain('apiKey=***');
    expect(logged).toContain('"access_token":"***"');
    expect(report.probeErrors).toBeGreaterThan(0);
    for (const text of [logged, ...run.errors.flatMap(renderings)]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(PAGE_TOKEN);
    }
  });

  if (/429/.test(spec.name)) {
    it('waits as long as Retry-After says before trying a 429ed record again', () => {
      expect(report.minWaitAfter429Ms).not.toBeNull();
      expect(report.minWaitAfter429Ms!).toBeGreaterThanOrEqual(995);
    });
  }

  if (/slower|resets/.test(spec.name)) {
    it('stores no duplicate when answers are lost after the endpoint stored the record: the retries carry its key', () => {
      expect(report.answersLost).toBeGreaterThan(0);
      // The endpoint saw the retries of those records, each with its key, and stored none of them again.
      expect(report.replayed).toBeGreaterThan(0);
      expect(report.duplicated).toBe(0);
    });
  }

  if (/overflowing/.test(spec.name)) {
    it('fills the queue up to maxQueueSize during the outage and drops the rest at once', () => {
      expect(report.peakQueued).toBe(report.maxQueueSize);
      expect(report.dropped).toBeGreaterThan(0);
    });
  }
});
