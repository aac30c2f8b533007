import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScript } from '../helpers/run-script.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'process-key-2b7e91';
const TOKEN = 'EAAGpagetoken0123456789';
let sink: Sink;

beforeEach(async () => {
  sink = await startSink();
});

afterEach(async () => {
  await sink.close();
});

describe('the host process', () => {
  it('exits by itself when the client is idle and never closed', async () => {
    const run = await runScript('test/client/fixtures/idle-client.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url } });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('delivered; not closing');
    expect(sink.requests).toHaveLength(1);
  });

  it('stays alive through retry backoff until an awaited record settles (ESM top-level await)', async () => {
    sink.behave((_r, i) => (i < 2 ? { status: 503 } : undefined));
    const run = await runScript('test/client/fixtures/pending-retry.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('settled: delivered');
    expect(sink.requests).toHaveLength(3);
  });
});

describe('a short script that never closes the client', () => {
  it('still gets what it logged delivered before it exits, through retries', async () => {
    sink.behave((_r, i) => (i < 2 ? { status: 503 } : undefined));
    const run = await runScript('test/client/fixtures/never-closed.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url } });
    expect(run.code).toBe(0);
    expect(new Set(sink.requests.map((r) => r.body.text))).toEqual(new Set(['record 0', 'record 1', 'record 2']));
    expect(run.stderr).toContain('info: process exiting: tracking closed: 3 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 0 abandoned at the deadline');
  });

  it('with the endpoint down, exits within the close deadline (5 s by default), saying what it gave up', async () => {
    sink.behave(() => ({ status: 503 }));
    const run = await runScript('test/client/fixtures/never-closed.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url }, timeoutMs: 20_000 });
    expect(run.code).toBe(0);
    expect(run.ms).toBeLessThan(5_000 + 3_000);
    expect(run.stderr).toMatch(/warn: process exiting: tracking closed: 0 delivered, (\d+) given up, 0 dropped, 0 saved to persistDir, (\d+) abandoned at the deadline/);
    const [, givenUp, abandoned] = /(\d+) given up, 0 dropped, 0 saved to persistDir, (\d+) abandoned/.exec(run.stderr)!;
    expect(Number(givenUp) + Number(abandoned)).toBe(3);
    expect(run.stderr).not.toContain(KEY);
  }, 25_000);
});

describe('secrets', () => {
  it('never prints the API key or an access token, with debug logging on, on any failure path', async () => {
    sink.behave((r) => {
      const text: string = r.body?.text ?? r.body?.json?.message?.text ?? '';
      if (text.startsWith('status-')) return { status: Number(text.slice(7)), body: `{"error":"bad key ${KEY}"}` };
      if (text === 'reset') return { reset: true };
      if (text === 'slow') return { delayMs: 1_000 };
      return undefined;
    });
    const run = await runScript('test/client/fixtures/leak-check.ts', {
      env: { TRACKING_API_KEY: KEY, TRACKING_DEBUG: '1', SINK_URL: sink.url, SECRET_TOKEN: TOKEN },
      timeoutMs: 30_000,
    });
    expect(run.stdout).toContain('done');
    const output = run.stdout + run.stderr;
    // The run did exercise the paths: errors were printed and debug lines were written.
    expect(output).toContain('TrackingDeliveryError');
    expect(output).toContain('unauthorized');
    expect(output).toContain('apiKey=***');
    expect(run.stderr).toContain('debug:');
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(TOKEN);
    // And the key did go over the wire, where it belongs.
    expect(sink.requests.some((r) => r.query.apiKey === KEY)).toBe(true);
  }, 40_000);
});
