/**
 * Short-lived hosts: a script that never closes its client, and a serverless host that awaits
 * `flush()` at the end of each invocation. Each runs in a process of its own, so what keeps the
 * process alive (or does not) is real.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChannelService } from '../helpers/channel-service.js';
import { runScript, startScript } from '../helpers/run-script.js';
import { startSink, type Sink } from '../helpers/sink.js';
import { closedPort } from '../helpers/ports.js';

const KEY = 'short-lived-key-61d0c3';
let sink: Sink;
let dir: string;

beforeEach(async () => {
  sink = await startSink();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-short-'));
});
afterEach(async () => {
  await sink.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes `count` records as an earlier process would have saved them (users saved-0…saved-{users-1}). */
function saveEarlierRecords(count: number, users: number): void {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ platform: 'sms', type: 'incoming', at: [1_700_000_000_000, i + 1], body: { text: `saved ${i}`, userId: `saved-${i % users}` } }));
  fs.writeFileSync(path.join(dir, 'records-4242-earlier.ndjson'), `${lines.join('\n')}\n`, { mode: 0o600 });
}

/** Every record in persistDir now, by text; and whether any file is still claimed. */
function onDisk(): { texts: string[]; claimed: string[] } {
  const texts: string[] = [];
  const names = fs.readdirSync(dir);
  for (const name of names) {
    for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (line.trim() !== '') texts.push((JSON.parse(line) as { body: { text: string } }).body.text);
    }
  }
  return { texts, claimed: names.filter((n) => n.includes('.claimed-')) };
}


describe('a short script that never closes its client, with records an earlier process saved', () => {
  it('exits within the close deadline with the endpoint down, says what it did, and keeps every record on disk', async () => {
    saveEarlierRecords(3_000, 100);
    const port = await closedPort();
    const run = await runScript('test/client/fixtures/short-script.ts', {
      env: { TRACKING_API_KEY: KEY, SINK_URL: `http://127.0.0.1:${port}`, PERSIST_DIR: dir, MAX_QUEUE_SIZE: '100', RECORDS: '1' },
      timeoutMs: 40_000,
    });
    // Killed at 40 s if a timer or socket kept it alive; it must end by itself, well within that.
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    expect(run.ms).toBeLessThan(20_000);
    const line = /process exiting: tracking closed: (\d+) delivered, (\d+) given up, (\d+) dropped, (\d+) saved to persistDir, (\d+) abandoned at the deadline.*; (\d+) records in all/.exec(run.stderr);
    expect(line, run.stderr).not.toBeNull();
    const [delivered, givenUp, dropped, saved, abandoned, total] = line!.slice(1).map(Number);
    expect({ delivered, givenUp, dropped }).toEqual({ delivered: 0, givenUp: 0, dropped: 0 });
    expect(saved + abandoned).toBe(total);
    expect(total).toBeGreaterThan(1); // its own record and the saved ones it had queued
    expect(run.stderr).toMatch(/\d+ saved records not re-sent yet stay in persistDir for the next start/);
    // Nothing lost: the 3,000 saved records and the script's own are all on disk, none claimed.
    const { texts, claimed } = onDisk();
    expect(claimed).toEqual([]);
    expect(new Set(texts)).toEqual(new Set([...Array.from({ length: 3_000 }, (_, i) => `saved ${i}`), 'record 0']));
    expect(run.stderr).not.toContain(KEY);
  }, 45_000);
});

describe('a serverless host that awaits flush() per invocation', () => {
  it('runs the Azure Functions example in docs/delivery-and-shutdown.md as written: each invocation\'s records are delivered before it returns, and the host ends by itself after the last', async () => {
    const doc = fs.readFileSync('docs/delivery-and-shutdown.md', 'utf8');
    const example = /## Short-lived hosts[\s\S]*?```js\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toContain("app.http('messages'");
    const file = path.join(dir, 'messages.mjs');
    fs.writeFileSync(file, example!);
    const channel = await startChannelService();
    const seenAt: string[][] = [];
    try {
      const host = startScript('test/client/fixtures/functions-host/host.mjs', {
        nodeArgs: ['--import', './test/client/fixtures/functions-host/register.mjs'],
        args: [file],
        env: { TRACKING_API_KEY: KEY, TRACKING_BASE_URL: sink.url, SERVICE_URL: channel.url, INVOCATIONS: '3', TRACKING_DEBUG: '' },
        timeoutMs: 30_000,
        // What the endpoint had received when each invocation returned.
        onOutput: (stream, text) => {
          if (stream === 'stdout') for (const _ of text.matchAll(/^invocation \d+:/gm)) seenAt.push(sink.requests.map((r) => String(r.body?.text)));
        },
      });
      const result = await host.result;
      expect(result.stdout).toContain('host idle');
      expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
      expect([...result.stdout.matchAll(/^invocation (\d+): HTTP (\d+), (\d+) timers$/gm)].map((m) => [m[1], m[2], m[3]])).toEqual([
        ['0', '200', '0'],
        ['1', '200', '0'],
        ['2', '200', '0'],
      ]);
      for (let i = 0; i < 3; i++) expect(seenAt[i]).toEqual(expect.arrayContaining([`hello ${i}`, `You said: hello ${i}`]));
      expect(channel.sent.map((s) => s.activity.text)).toEqual(['You said: hello 0', 'You said: hello 1', 'You said: hello 2']);
    } finally {
      await channel.close();
    }
  }, 40_000);

  it('with records an earlier instance saved: between invocations no timer of the client is left, and nothing saved is lost when it ends', async () => {
    saveEarlierRecords(300, 10);
    sink.behave(() => ({ delayMs: 10 }));
    const seenAt: string[][] = [];
    const host = startScript('test/client/fixtures/replaying-host.ts', {
      env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url, PERSIST_DIR: dir, INVOCATIONS: '3' },
      timeoutMs: 30_000,
      onOutput: (stream, text) => {
        if (stream === 'stdout') for (const _ of text.matchAll(/^invocation \d+:/gm)) seenAt.push(sink.requests.map((r) => String(r.body?.text)));
      },
    });
    const result = await host.result;
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    expect([...result.stdout.matchAll(/^invocation (\d+): flushed, (\d+) timers$/gm)].map((m) => [m[1], m[2]])).toEqual([
      ['0', '0'],
      ['1', '0'],
      ['2', '0'],
    ]);
    for (let i = 0; i < 3; i++) expect(seenAt[i]).toEqual(expect.arrayContaining([`invocation ${i} in`, `invocation ${i} out`]));
    // Every saved record was either delivered or is back on disk for the next instance.
    const delivered = new Set(sink.requests.map((r) => String(r.body?.text)));
    const { texts, claimed } = onDisk();
    expect(claimed).toEqual([]);
    for (let i = 0; i < 300; i++) expect(delivered.has(`saved ${i}`) || texts.includes(`saved ${i}`)).toBe(true);
  }, 40_000);
});
