import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScript } from '../helpers/run-script.js';
import { startSink, type Sink } from '../helpers/sink.js';
import { closedPort } from '../helpers/ports.js';

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

  it('stays alive while an awaited request is in flight, and keeps the client open for the next record', async () => {
    sink.behave(() => ({ delayMs: 300 }));
    const run = await runScript('test/client/fixtures/awaits-each.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('record 0: delivered\nrecord 1: delivered\nrecord 2: delivered');
    expect(run.stdout).toContain('"delivered":3');
    expect(run.stderr).toBe('');
    expect(sink.requests).toHaveLength(3);
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

  it('with the endpoint failing (503), exits within the close deadline (5 s by default) of its last line, saying what it gave up', async () => {
    sink.behave(() => ({ status: 503 }));
    const run = await exitDelay(await runScript('test/client/fixtures/never-closed.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url }, timeoutMs: 30_000 }));
    expect(run.code).toBe(0);
    expect(run.afterLastLineMs).toBeLessThan(5_000 + SLACK_MS);
    expect(closeLine(run.stderr), run.stderr).toMatchObject({ delivered: 0, dropped: 0, saved: 0, total: 3 });
    const line = closeLine(run.stderr)!;
    expect(line.givenUp + line.abandoned).toBe(3);
    expect(run.stderr).not.toContain(KEY);
  }, 35_000);

  it('with nothing listening at the endpoint, default retries: exits within the close deadline of its last line, each record given up once', async () => {
    const run = await exitDelay(await runScript('test/client/fixtures/never-closed.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: `http://127.0.0.1:${await closedPort()}` }, timeoutMs: 30_000 }));
    expect(run.code).toBe(0);
    expect(run.afterLastLineMs).toBeLessThan(5_000 + SLACK_MS);
    const line = closeLine(run.stderr);
    expect(line, run.stderr).toMatchObject({ delivered: 0, dropped: 0, saved: 0, total: 3 });
    expect(line!.givenUp + line!.abandoned).toBe(3);
    expect(run.stderr).toContain('Nothing is listening at');
  }, 35_000);

  it('with an endpoint that takes the connection and never answers: exits within the close deadline of its last line, not the 10 s request timeout, its requests cut off and counted once', async () => {
    const silent = await startSilentEndpoint();
    try {
      const run = await exitDelay(await runScript('test/client/fixtures/never-closed.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: silent.url }, timeoutMs: 30_000 }));
      expect(run.code).toBe(0);
      expect(run.afterLastLineMs).toBeLessThan(5_000 + SLACK_MS);
      // Two users: a request each was in flight, and the third record waited behind its user's first.
      expect(silent.requests()).toBe(2);
      expect(closeLine(run.stderr), run.stderr).toEqual({ delivered: 0, givenUp: 0, dropped: 0, saved: 0, abandoned: 3, fate: '(given up)', total: 3 });
      expect(run.stderr).toContain('(1 attempt, none answered)');
    } finally {
      await silent.close();
    }
  }, 35_000);

  it('with an endpoint that never answers and persistDir set: the requests cut off at the deadline are saved, each record once', async () => {
    const silent = await startSilentEndpoint();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-silent-'));
    try {
      const run = await exitDelay(await runScript('test/client/fixtures/never-closed.ts', { env: { TRACKING_API_KEY: KEY, SINK_URL: silent.url, PERSIST_DIR: dir }, timeoutMs: 30_000 }));
      expect(run.code).toBe(0);
      expect(run.afterLastLineMs).toBeLessThan(5_000 + SLACK_MS);
      expect(closeLine(run.stderr), run.stderr).toEqual({ delivered: 0, givenUp: 0, dropped: 0, saved: 0, abandoned: 3, fate: '(all saved to persistDir)', total: 3 });
      const texts = fs.readdirSync(dir).flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => (JSON.parse(l) as { body: { text: string } }).body.text));
      expect(texts.sort()).toEqual(['record 0', 'record 1', 'record 2']);
    } finally {
      await silent.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 35_000);
});

/** Startup of a child with tsx and scheduling on a busy machine, beyond the deadline itself. */
const SLACK_MS = 1_500;

/** A script's result, with how long it took to exit after it printed its last line (`last line at <ms>`). */
async function exitDelay(run: Awaited<ReturnType<typeof runScript>>) {
  const exitedAt = Date.now();
  const at = /last line at (\d+)/.exec(run.stdout);
  expect(at, run.stdout + run.stderr).not.toBeNull();
  return { ...run, afterLastLineMs: exitedAt - Number(at![1]) };
}


/** An endpoint on 127.0.0.1 that reads each request and never answers it. */
async function startSilentEndpoint(): Promise<{ url: string; requests(): number; close(): Promise<void> }> {
  let requests = 0;
  const server = http.createServer((req) => {
    requests++;
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The numbers of the line a client writes when it closes, or undefined when it wrote none. */
function closeLine(stderr: string) {
  const m = /tracking closed: (\d+) delivered, (-?\d+) given up, (\d+) dropped, (-?\d+) saved to persistDir, (\d+) abandoned at the deadline( \([^)]*\))?; (\d+) records in all/.exec(stderr);
  if (m === null) return undefined;
  const [delivered, givenUp, dropped, saved, abandoned] = m.slice(1, 6).map(Number);
  return { delivered, givenUp, dropped, saved, abandoned, fate: m[6]?.trim(), total: Number(m[7]) };
}

describe('the line a client writes when it closes', () => {
  it('adds up when records are given up: delivered + given up + dropped + saved + abandoned = the records in all', async () => {
    sink.behave(() => ({ status: 503 }));
    const run = await runScript('test/client/fixtures/short-script.ts', {
      env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url, RECORDS: '6', CLOSE_TIMEOUT_MS: '1000', BACKOFF_MS: '50,100' },
      timeoutMs: 20_000,
    });
    expect(run.code).toBe(0);
    const line = closeLine(run.stderr);
    expect(line, run.stderr).toBeDefined();
    expect(line).toMatchObject({ delivered: 0, dropped: 0, saved: 0, total: 6 });
    expect(line!.givenUp).toBeGreaterThanOrEqual(0);
    expect(line!.givenUp + line!.abandoned).toBe(6);
  }, 25_000);

  it('adds up when records abandoned at the deadline are saved to persistDir, each counted once', async () => {
    sink.behave(() => ({ status: 503 }));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-line-'));
    try {
      // 30 records, room for 10: 20 are saved at once, 10 are still being retried at the 1 s deadline.
      const run = await runScript('test/client/fixtures/short-script.ts', {
        env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url, RECORDS: '30', MAX_QUEUE_SIZE: '10', PERSIST_DIR: dir, CLOSE_TIMEOUT_MS: '1000', BACKOFF_MS: '2000,2000' },
        timeoutMs: 20_000,
      });
      expect(run.code).toBe(0);
      expect(closeLine(run.stderr)).toEqual({ delivered: 0, givenUp: 0, dropped: 0, saved: 20, abandoned: 10, fate: '(all saved to persistDir)', total: 30 });
      const lines = fs.readdirSync(dir).flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter((l) => l.trim() !== ''));
      expect(lines).toHaveLength(30);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
