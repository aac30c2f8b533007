/**
 * Issue 29, parts 1 and 2, as a user meets them: plain scripts (nothing else keeps their event loop
 * busy), each in a process of its own, against a real flaky endpoint on 127.0.0.1 (flaky-endpoint.ts).
 * What a caller awaits is delivered, or given up by the retry caps, never cut off by the exit
 * guard's deadline; what nobody awaits still lets the process end within closeTimeoutMs; the
 * defaults ride out a minute-long outage; what is lost is said, with a count by kind.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ISSUE_MIX, startFlakyEndpoint, type FlakyEndpoint } from '../helpers/flaky-endpoint.js';
import { closedPort } from '../helpers/ports.js';
import { runScript, startScript } from '../helpers/run-script.js';

const KEY = 'awaited-key-29a7c1';
const SCRIPT = 'test/faults/fixtures/awaiting-script.ts';
let endpoint: FlakyEndpoint | undefined;

afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** The script's JSON line (its last on stdout). */
function outcome(stdout: string): Record<string, any> {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as Record<string, any>;
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `r${i}`);

describe('a script that awaits delivery, against an endpoint answering 12% 500, 4% 503, 3% 429, 4% resets and 5% slow', () => {
  it('await client.flush(): every record delivered or given up by the retry caps, none abandoned at a deadline', async () => {
    endpoint = await startFlakyEndpoint(ISSUE_MIX);
    const run = await runScript(SCRIPT, { env: { TRACKING_API_KEY: KEY, SINK_URL: endpoint.url, MODE: 'flush', RECORDS: '1000', USERS: '25' }, timeoutMs: 110_000 });
    expect({ code: run.code, signal: run.signal }, run.stderr).toEqual({ code: 0, signal: null });
    const { flushed, stats } = outcome(run.stdout);
    expect(flushed.delivered + flushed.givenUp).toBe(1000);
    expect(flushed.pending).toBe(0);
    // On the defaults nothing is given up under these faults (no attempt cap; 90 s budget).
    expect(flushed).toEqual({ delivered: 1000, givenUp: 0, saved: 0, pending: 0 });
    expect(stats).toMatchObject({ logged: 1000, delivered: 1000, failed: 0, queued: 0, inFlight: 0 });
    expect(new Set(endpoint.acknowledged)).toEqual(new Set(texts(1000)));
    // The faults did happen: some requests failed and were retried.
    expect(endpoint.answered['500'] + endpoint.answered.reset).toBeGreaterThan(100);
    expect(run.stderr).not.toContain('abandoned');
    expect(run.stderr).not.toContain('close() reached its deadline');
  }, 120_000);

  it('awaits the promises the log calls returned: each settles by delivery, none abandoned at a deadline', async () => {
    endpoint = await startFlakyEndpoint(ISSUE_MIX, 7);
    const run = await runScript(SCRIPT, { env: { TRACKING_API_KEY: KEY, SINK_URL: endpoint.url, MODE: 'await', RECORDS: '1000', USERS: '25' }, timeoutMs: 110_000 });
    expect({ code: run.code, signal: run.signal }, run.stderr).toEqual({ code: 0, signal: null });
    const result = outcome(run.stdout);
    expect(result).toMatchObject({ fulfilled: 1000, rejected: 0, reasons: {} });
    expect(new Set(endpoint.acknowledged)).toEqual(new Set(texts(1000)));
    expect(run.stderr).not.toContain('close-deadline');
  }, 120_000);

  it('flush({ timeoutMs }) returns at its own deadline with what is left, and the process still ends', async () => {
    endpoint = await startFlakyEndpoint();
    await endpoint.down();
    const run = await runScript(SCRIPT, {
      env: { TRACKING_API_KEY: KEY, SINK_URL: endpoint.url, MODE: 'flush', RECORDS: '20', USERS: '4', FLUSH_TIMEOUT_MS: '1500', CLOSE_TIMEOUT_MS: '1000' },
      timeoutMs: 30_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const { flushed, ms } = outcome(run.stdout);
    expect(flushed).toEqual({ delivered: 0, givenUp: 0, saved: 0, pending: 20 });
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(ms).toBeLessThan(4_000);
    // Then nothing is awaited any more: the exit guard closes the client within closeTimeoutMs and says what it left.
    expect(run.stderr).toMatch(/process exiting: tracking closed: 0 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 20 abandoned at the deadline \(given up\); 20 records in all/);
    expect(run.stderr).toContain('tracking: 20 records given up: 20 incoming');
  }, 35_000);
});

describe('a script that awaits nothing', () => {
  it('with the endpoint down, exits within closeTimeoutMs + 1 s of its last line', async () => {
    const run = await runScript(SCRIPT, { env: { TRACKING_API_KEY: KEY, SINK_URL: `http://127.0.0.1:${await closedPort()}`, MODE: 'forget', RECORDS: '30', USERS: '5', CLOSE_TIMEOUT_MS: '2000' }, timeoutMs: 30_000 });
    const exitedAt = Date.now();
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
    const last = Number(/last line at (\d+)/.exec(run.stdout)?.[1]);
    expect(exitedAt - last).toBeLessThan(2_000 + 1_000);
    expect(run.stderr).toMatch(/process exiting: tracking closed: 0 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 30 abandoned at the deadline \(given up\); 30 records in all/);
    expect(run.stderr).toContain('Nothing is listening at');
  }, 35_000);

  it('process.exit() with records pending: says how many it leaves behind, by kind', async () => {
    const run = await runScript(SCRIPT, { env: { TRACKING_API_KEY: KEY, SINK_URL: `http://127.0.0.1:${await closedPort()}`, MODE: 'exit', RECORDS: '4', USERS: '2' }, timeoutMs: 20_000 });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('process exiting: the process is ending with 4 records not delivered: 4 incoming.');
  });
});

describe('an endpoint outage', () => {
  it('down for 60 s, then back: nothing lost on the defaults, and delivery resumes within seconds of its return', async () => {
    endpoint = await startFlakyEndpoint();
    await endpoint.down();
    const child = startScript(SCRIPT, { env: { TRACKING_API_KEY: KEY, SINK_URL: endpoint.url, MODE: 'flush', RECORDS: '60', USERS: '6' }, timeoutMs: 110_000 });
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    const backAt = Date.now();
    await endpoint.up();
    const run = await child.result;
    expect({ code: run.code, signal: run.signal }, run.stderr).toEqual({ code: 0, signal: null });
    expect(outcome(run.stdout).flushed).toEqual({ delivered: 60, givenUp: 0, saved: 0, pending: 0 });
    expect(new Set(endpoint.acknowledged)).toEqual(new Set(texts(60)));
    // Backoff capped at 5 s (maxBackoffMs): every record is in within about that of the return.
    expect(endpoint.lastAckAt - backAt).toBeLessThan(5_000 + 2_000);
    expect(run.stderr).not.toContain('given up');
  }, 120_000);

  it('down for longer than the retry budget: what is given up is said, with a count by kind', async () => {
    endpoint = await startFlakyEndpoint();
    await endpoint.down();
    const run = await runScript(SCRIPT, { env: { TRACKING_API_KEY: KEY, SINK_URL: endpoint.url, MODE: 'events', MAX_RETRY_DURATION_MS: '1500' }, timeoutMs: 40_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(outcome(run.stdout).flushed).toEqual({ delivered: 0, givenUp: 6, saved: 0, pending: 0 });
    // One user: the records go one after another, each given up when its own budget runs out.
    expect(run.stderr).toContain('tracking: 6 records given up: 3 incoming, 2 outgoing, 1 revenueEvent');
    expect(run.stderr).not.toContain(KEY);
  }, 45_000);
});

describe('Ctrl+C (SIGINT) with records pending', () => {
  /** Starts the bot, waits for "ready" (its records logged, their requests held by a slow endpoint), sends SIGINT, and returns how it ended. */
  async function interrupt(env: Record<string, string>) {
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const child = startScript('test/faults/fixtures/ctrl-c-bot.ts', {
      env: { TRACKING_API_KEY: KEY, SINK_URL: endpoint!.url, RECORDS: '10', CLOSE_TIMEOUT_MS: '5000', ...env },
      timeoutMs: 30_000,
      onOutput: (stream, text) => {
        if (stream === 'stdout' && text.includes('ready')) ready();
      },
    });
    await isReady;
    const signalledAt = Date.now();
    process.kill(child.pid, 'SIGINT');
    const run = await child.result;
    return { ...run, afterSignalMs: Date.now() - signalledAt };
  }

  it('with the README\'s line (closeOnSignals: true): delivered within closeTimeoutMs, then the process ends by the signal', async () => {
    // Every answer takes 1 s: two records per user, one after the other, about 2 s in all.
    endpoint = await startFlakyEndpoint({ slow: 1, slowMs: 1_000 });
    const run = await interrupt({ CLOSE_ON_SIGNALS: '1' });
    expect(run.signal).toBe('SIGINT');
    expect(run.afterSignalMs).toBeLessThan(5_000 + 1_000);
    expect(new Set(endpoint.acknowledged)).toEqual(new Set(texts(10)));
    expect(run.stderr).toMatch(/SIGINT: tracking closed: 10 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 0 abandoned at the deadline; 10 records in all/);
    expect(run.stderr).not.toContain('not delivered');
  }, 35_000);

  it('without it: the process ends by the signal at once, saying how many records it leaves behind', async () => {
    endpoint = await startFlakyEndpoint({ slow: 1, slowMs: 3_000 });
    const run = await interrupt({});
    expect(run.signal).toBe('SIGINT');
    expect(run.afterSignalMs).toBeLessThan(2_000);
    expect(run.stderr).toContain('SIGINT: the process is ending with 10 records not delivered: 10 incoming. Close the client when the process ends (closeOnSignals: true, or await client.close()) to deliver them.');
  }, 35_000);
});
