/**
 * Shutdown of a real bot process: the echo-bot sample (CloudAdapter over HTTP, TrackingMiddleware
 * with `closeOnSignals`, deadline from TRACKING_CLOSE_TIMEOUT_MS) runs against src/, takes a
 * stream of user messages from several users (replying through a fake channel service), tracks
 * to a real local endpoint behind a fault front, and receives SIGTERM mid-traffic.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TrackingClient } from '../../src/index.js';
import { startTrackingEndpoint, type TrackingEndpoint } from 'botbuilder-conversation-analytics-endpoint';
import { startChannelService, type ChannelService } from '../helpers/channel-service.js';
import { startFaultFront, type FaultFront, type Fault } from '../helpers/fault-front.js';
import { startScript, type ScriptResult } from '../helpers/run-script.js';
import { startSink } from '../helpers/sink.js';

const KEY = 'shutdown-key-4f9a02c7';
const USERS = 6;
const SUMMARY = /SIGTERM: tracking closed: (\d+) delivered, (\d+) given up, (\d+) dropped, (\d+) saved to persistDir, (\d+) abandoned at the deadline/;

interface Run {
  result: ScriptResult;
  /** ms from SIGTERM to the process's exit. */
  exitMs: number;
  /** Turns the bot had answered (HTTP 200) when SIGTERM was sent. */
  answeredBeforeSignal: { user: string; n: number }[];
  /** Turns the bot answered in all. */
  answeredTotal: number;
  /** Texts the endpoint stored, read back through its read side. */
  stored: string[];
  /** Replies the bot sent through the channel service. */
  replies: number;
  summary: { delivered: number; givenUp: number; dropped: number; persisted: number; abandoned: number } | undefined;
}

/**
 * Starts the sample, drives traffic until the client has a backlog of `backlog` records
 * (logged but not yet stored), then calls `beforeSignal` and sends SIGTERM.
 */
async function runShutdown(options: { closeTimeoutMs: number; answerDelayMs: number; backlog: number; beforeSignal?: (front: FaultFront) => Promise<void> }): Promise<Run> {
  const endpoint: TrackingEndpoint = await startTrackingEndpoint({ port: 0, dataFile: false, apiKeys: [KEY], log: () => undefined, closeGraceMs: 200 });
  const slow: Fault = { kind: 'slow', holdMs: options.answerDelayMs, when: 'after-store' };
  const front = await startFaultFront(endpoint.url, () => slow);
  const channel: ChannelService = await startChannelService();
  let listening: (url: string) => void;
  const botUrl = new Promise<string>((resolve) => (listening = resolve));
  const bot = startScript('samples/echo-bot/index.mjs', {
    nodeArgs: ['--import', './test/faults/fixtures/use-source.mjs'],
    env: { TRACKING_API_KEY: KEY, TRACKING_BASE_URL: front.url, PORT: '0', TRACKING_CLOSE_TIMEOUT_MS: String(options.closeTimeoutMs), TRACKING_DEBUG: '' },
    timeoutMs: 30_000,
    onOutput: (stream, text) => {
      const m = stream === 'stdout' ? /listening on (\S+)/.exec(text) : null;
      if (m !== null) listening(m[1]);
    },
  });
  const url = await Promise.race([botUrl, bot.result.then((r) => Promise.reject(new Error(`the bot exited early: ${r.stderr}`)))]);

  const answered: { user: string; n: number }[] = [];
  let signalledAt: number | undefined;
  let answeredBeforeSignal: { user: string; n: number }[] = [];
  let signalling: Promise<void> | undefined;
  const signal = async () => {
    await options.beforeSignal?.(front);
    answeredBeforeSignal = [...answered];
    signalledAt = performance.now();
    process.kill(bot.pid, 'SIGTERM');
  };
  const exited = bot.result.then((result) => ({ result, at: performance.now() }));
  let gone = false;
  void exited.then(() => (gone = true));

  // Each user sends a message, waits for the bot's answer, and sends the next, until the bot is gone.
  await Promise.all(Array.from({ length: USERS }, async (_, u) => {
    const user = `user-${u}`;
    for (let n = 1; !gone; n++) {
      const activity = {
        type: 'message', id: `${user}-${n}`, channelId: 'webchat', serviceUrl: channel.url,
        from: { id: user, name: user }, recipient: { id: 'bot', name: 'bot' }, conversation: { id: `conv-${user}` }, text: `marker ${user}:${n}`,
      };
      try {
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(activity) });
        await response.arrayBuffer();
        if (response.status !== 200) break;
      } catch {
        break; // the bot stopped taking connections
      }
      answered.push({ user, n });
      if (signalling === undefined && answered.length >= 60 && 2 * answered.length - (await endpoint.store.count()) >= options.backlog) signalling = signal();
    }
  }));
  await signalling;
  const { result, at } = await exited;
  await front.plan(() => ({ kind: 'forward' }));

  const stored: string[] = [];
  for (let u = 0; u < USERS; u++) {
    const response = await fetch(`${endpoint.url}/api/transcript?user=user-${u}`);
    const { entries = [] } = (await response.json()) as { entries?: { text?: string }[] };
    stored.push(...entries.map((e) => e.text ?? ''));
  }
  const m = SUMMARY.exec(result.stderr);
  const run: Run = {
    result,
    exitMs: at - (signalledAt ?? at),
    answeredBeforeSignal,
    answeredTotal: answered.length,
    stored,
    replies: channel.sent.length,
    summary: m === null ? undefined : { delivered: Number(m[1]), givenUp: Number(m[2]), dropped: Number(m[3]), persisted: Number(m[4]), abandoned: Number(m[5]) },
  };
  await front.close();
  await channel.close();
  await endpoint.close();
  return run;
}

describe('a bot sent SIGTERM mid-traffic', () => {
  // Long enough for a busy machine to deliver the 120-record backlog (a quiet one takes about 1 s):
  // the test is about what the bot delivers before it exits, not about how fast.
  const CLOSE_TIMEOUT_MS = 10_000;
  let run: Run;

  beforeAll(async () => {
    run = await runShutdown({ closeTimeoutMs: CLOSE_TIMEOUT_MS, answerDelayMs: 25, backlog: 120 });
  }, 60_000);

  it('exits on the signal, well within TRACKING_CLOSE_TIMEOUT_MS', () => {
    expect(run.result.signal).toBe('SIGTERM');
    expect(run.exitMs).toBeLessThan(CLOSE_TIMEOUT_MS);
  });

  it('delivers, before it exits, the records of every turn it answered before the signal', () => {
    expect(run.answeredBeforeSignal.length).toBeGreaterThanOrEqual(60);
    const stored = new Set(run.stored);
    const missing = run.answeredBeforeSignal.flatMap(({ user, n }) => [`marker ${user}:${n}`, `Echo: marker ${user}:${n}`]).filter((text) => !stored.has(text));
    expect(missing).toEqual([]);
  });

  it('writes one line to stderr with what it delivered and what it could not, matching what the endpoint stored', () => {
    expect(run.summary).toBeDefined();
    const summary = run.summary!;
    expect(summary.delivered).toBe(run.stored.length);
    expect({ givenUp: summary.givenUp, abandoned: summary.abandoned, persisted: summary.persisted }).toEqual({ givenUp: 0, abandoned: 0, persisted: 0 });
    // Every record of every turn is accounted for: delivered, or refused after the signal (turns still running) and counted.
    expect(summary.delivered + summary.dropped).toBeLessThanOrEqual(2 * run.replies);
    expect(summary.delivered + summary.dropped).toBeGreaterThanOrEqual(2 * run.answeredBeforeSignal.length);
  });

  it('never prints the API key', () => {
    expect(run.result.stdout + run.result.stderr).not.toContain(KEY);
  });
});

describe('a bot sent SIGTERM while the endpoint stalls', () => {
  const CLOSE_TIMEOUT_MS = 800;
  let run: Run;

  beforeAll(async () => {
    run = await runShutdown({
      closeTimeoutMs: CLOSE_TIMEOUT_MS,
      answerDelayMs: 5,
      backlog: 20,
      // From the signal on, the endpoint takes requests and never answers.
      beforeSignal: (front) => front.plan(() => ({ kind: 'slow', holdMs: 60_000, when: 'before-forward' })),
    });
  }, 40_000);

  it('gives up at the TRACKING_CLOSE_TIMEOUT_MS deadline and exits on the signal', () => {
    expect(run.result.signal).toBe('SIGTERM');
    expect(run.exitMs).toBeGreaterThanOrEqual(CLOSE_TIMEOUT_MS - 50);
    expect(run.exitMs).toBeLessThan(CLOSE_TIMEOUT_MS + 1_500);
  });

  it('reports on stderr how many records it could not deliver, and every record is accounted for', () => {
    expect(run.summary).toBeDefined();
    const summary = run.summary!;
    expect(summary.abandoned).toBeGreaterThan(0);
    expect(summary.delivered).toBe(run.stored.length);
    // The line adds up: each record counted once (given up does not include the ones abandoned at the deadline).
    expect(summary.delivered + summary.givenUp + summary.abandoned + summary.persisted + summary.dropped).toBeGreaterThanOrEqual(2 * run.answeredBeforeSignal.length);
    expect(summary.delivered + summary.givenUp + summary.abandoned + summary.persisted).toBeLessThanOrEqual(2 * run.answeredTotal);
    expect(run.result.stderr).toMatch(/warn: SIGTERM: tracking closed/);
  });
});

/** Runs the own-signal-handler fixture, sends SIGTERM once it has delivered its record, and returns how it ended. */
async function stopApp(ownHandler: 'before' | 'after' | 'none'): Promise<ScriptResult> {
  const sink = await startSink();
  try {
    let ready: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const app = startScript('test/faults/fixtures/own-signal-handler.ts', {
      env: { TRACKING_API_KEY: KEY, SINK_URL: sink.url, OWN_HANDLER: ownHandler, TRACKING_DEBUG: '' },
      onOutput: (stream, text) => stream === 'stdout' && text.includes('ready') && ready(),
    });
    await Promise.race([started, app.result]);
    process.kill(app.pid, 'SIGTERM');
    return await app.result;
  } finally {
    await sink.close();
  }
}

describe('a process with closeOnSignals and the default logger', () => {
  it('says on stderr what it delivered when it stops cleanly, then ends by the signal', async () => {
    const result = await stopApp('none');
    expect(result.stderr).toContain('info: SIGTERM: tracking closed: 1 delivered, 0 given up, 0 dropped, 0 saved to persistDir, 0 abandoned at the deadline');
    expect(result.signal).toBe('SIGTERM');
  });

  for (const order of ['before', 'after'] as const) {
    it(`lets the application's own once-listener (registered ${order} the client) finish its cleanup and exit`, async () => {
      const result = await stopApp(order);
      expect(result.stdout).toContain('app cleanup done: 1 delivered');
      expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    });
  }
});

describe('close() at its deadline', () => {
  it('reports what it gave up, and never a negative number of queued records', async () => {
    const sink = await startSink(() => ({ delayMs: 5_000 }));
    try {
      const client = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, onError: () => undefined });
      for (let i = 0; i < 3; i++) void client.sms.logIncoming({ text: `stuck ${i}`, userId: `u${i}` }).catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      const { abandoned, stats } = await client.close(100);
      expect(abandoned).toBe(3);
      expect(stats).toMatchObject({ failed: 3, delivered: 0 });
      expect(stats.queued).toBe(0);
    } finally {
      await sink.close();
    }
  });
});
