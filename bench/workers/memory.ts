/**
 * Measurement 3, memory: one sender per process, so its resident set size (RSS) is its own.
 *
 * - `burst`: after a warm-up, a burst of turns round-robin over `users` conversations
 *   (`runRoundRobin`; each message is made just before its turn, as if it had just arrived),
 *   until the sink has counted every record. For `bare`, the bot runs without tracking while a
 *   bare `node:http` loop sends the same records, made before the burst: the floor any sender of
 *   one POST per record starts from. Reports the peak RSS growth over the RSS before the burst
 *   (the kernel's peak, `maxRSS`, or a 5 ms sample, whichever is higher).
 * - `retained`: the memory one queued record holds (after a full GC: heap and ArrayBuffers), with
 *   the default transport and an endpoint that never answers.
 * - `down`: the endpoint is down (nothing listens on its port); `client.universal.logIncoming`
 *   is called `records` times, in batches with a yield between them, then the client is closed
 *   with a 2 s deadline. Reports the RSS growth up to the queue cap and beyond it (flat: none),
 *   and how every record ended: delivered, dropped, given up.
 */
import net from 'node:net';
import type { Message } from '../../src/protocol/index.js';
import { dashbotMicrosoft, echoAdapter, forgetReplies, nextTick, ourClient, ourMiddleware, runRoundRobin, sinkWait, userMessage, userMessages } from '../lib/bot.js';
import { bareLoop } from '../lib/bare.js';
import { captureRequests } from '../lib/capture.js';
import { collectGarbage, serve } from '../lib/worker.js';

export type MemorySender = 'none' | 'ours' | 'dashbot' | 'bare';

const MB = 1024 * 1024;

/** The heap in use after a full GC, MB: what the process holds. */
function heapHeldMb(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed / MB;
}

/**
 * Starts tracking the peak RSS of this process (after a full GC): sampled every 5 ms, and the
 * kernel's high-water mark (`maxRSS`) when it rose. `mark()` starts a new window; `stop()`
 * reports the peak over the whole span, and `windowPeakMb` the peak since the last mark.
 */
function rssPeak() {
  collectGarbage();
  collectGarbage();
  const baseline = process.memoryUsage.rss();
  let maxRssBefore = process.resourceUsage().maxRSS * 1024;
  let sampled = baseline;
  let windowSampled = baseline;
  let overall = baseline;
  const sample = () => {
    const rss = process.memoryUsage.rss();
    if (rss > sampled) sampled = rss;
    if (rss > windowSampled) windowSampled = rss;
  };
  const timer = setInterval(sample, 5);
  /** The peak of the current window: the samples, or the kernel's high-water mark if it rose during the window. */
  const windowPeak = () => {
    sample();
    const maxRss = process.resourceUsage().maxRSS * 1024;
    return maxRss > maxRssBefore ? Math.max(maxRss, windowSampled) : windowSampled;
  };
  return {
    baseline,
    /** Ends the current window (its peak counts in the overall peak) and starts a new one; returns the ended window's peak growth, MB. */
    mark(): number {
      const peak = windowPeak();
      overall = Math.max(overall, peak);
      maxRssBefore = process.resourceUsage().maxRSS * 1024;
      windowSampled = process.memoryUsage.rss();
      return (peak - baseline) / MB;
    },
    stop() {
      clearInterval(timer);
      const last = windowPeak();
      const peak = Math.max(overall, last, sampled);
      return { baselineMb: baseline / MB, peakMb: peak / MB, growthMb: (peak - baseline) / MB, windowPeakMb: (last - baseline) / MB };
    },
  };
}

interface BurstArgs {
  sender: MemorySender;
  sinkUrl: string;
  phase: number;
  turns: number;
  users: number;
  /** Our client's `maxQueueSize` (default 10,000). */
  maxQueueSize?: number;
}

async function burst(args: BurstArgs) {
  const { sender, sinkUrl, phase, turns, users } = args;
  // As configured by default (no onError): drops are counted in stats().
  const ours = sender === 'ours' ? ourClient(sinkUrl, args.maxQueueSize === undefined ? {} : { maxQueueSize: args.maxQueueSize }, false) : undefined;
  const bot = sender === 'none' || sender === 'bare' ? echoAdapter() : sender === 'ours' ? echoAdapter(ourMiddleware(ours!.client)) : echoAdapter(dashbotMicrosoft(sinkUrl).middleware());
  // The bare loop sends the burst's records, made before the burst (so not counted), while the bot runs its turns.
  const ready = sender === 'bare' ? await captureRequests(sinkUrl, Array.from({ length: turns }, (_, i) => userMessage(phase, i, i % users))) : [];
  // Warm-up: the same code paths, a tenth of the size, fully delivered.
  const warm = Math.max(64, Math.floor(turns / 10));
  await runRoundRobin(bot, warm, users, (i) => userMessage(phase + 1, i, i % users));
  await ours?.client.flush();
  if (sender === 'bare') await bareLoop(await captureRequests(sinkUrl, userMessages(phase + 1, warm, users)), 16);
  if (sender !== 'none') await sinkWait(sinkUrl, phase + 1, 2 * warm);
  const peak = rssPeak();
  const start = performance.now();
  const sent = sender === 'bare' ? bareLoop(ready, 16) : undefined;
  await runRoundRobin(bot, turns, users, (i) => userMessage(phase, i, i % users));
  const turnsMs = performance.now() - start;
  await sent;
  await ours?.client.flush();
  const stats = ours?.client.stats();
  const expected = sender === 'none' ? 0 : 2 * turns - (stats?.dropped ?? 0) - (stats?.failed ?? 0);
  const counted = sender === 'none' ? undefined : await sinkWait(sinkUrl, phase, expected);
  const memory = peak.stop();
  return {
    ...memory,
    turns,
    turnsMs,
    ms: performance.now() - start,
    records: sender === 'none' ? 0 : 2 * turns,
    received: counted?.unique ?? 0,
    dropped: stats?.dropped ?? 0,
    failed: stats?.failed ?? 0,
  };
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The endpoint is down: `records` records logged in batches (a yield between them). The queue
 * fills up after `maxQueueSize` records and drops the rest. After `capAt` records (well past the
 * cap, so the heap has settled into dropping), the RSS growth so far and the heap held after a
 * full GC are noted; over the rest of the run (every record dropped, then `close()`), the peak
 * RSS must not grow beyond it, and the heap held must not grow at all: memory stays flat at the cap.
 */
async function down(args: { records: number; batch: number; capAt: number }) {
  const port = await closedPort();
  const { client, reported } = ourClient(`http://127.0.0.1:${port}`);
  const [sample] = await captureRequests('http://127.0.0.1:1', userMessages(0, 1));
  const template = JSON.parse(sample.body) as Message;
  const rejections = new Map<string, number>();
  let resolved = 0;
  const onRejected = (error: { reason?: string; name?: string }) => {
    const reason = error.reason ?? error.name ?? 'unknown';
    rejections.set(reason, (rejections.get(reason) ?? 0) + 1);
  };
  const onResolved = () => void resolved++;
  const { capAt } = args;
  let atCapMb = 0;
  let queuedAtCap = 0;
  let heapAtCapMb = 0;
  const peak = rssPeak();
  const start = performance.now();
  for (let i = 0; i < args.records; i++) {
    const message: Message = { ...template, text: `q0.${i}`, userId: `user-${i % 64}` };
    client.universal.logIncoming(message).then(onResolved, onRejected);
    if ((i + 1) % args.batch === 0) await nextTick();
    if (i + 1 === capAt) {
      const stats = client.stats();
      queuedAtCap = stats.queued + stats.inFlight;
      atCapMb = peak.mark();
      heapAtCapMb = heapHeldMb();
    }
  }
  const loggedMs = performance.now() - start;
  const statsAfterLogging = client.stats();
  const heapAfterMb = heapHeldMb();
  // With the endpoint down the queued records would retry for a long time (one user's records
  // go one at a time, each through its retries); close() gives up what is left at its deadline.
  const { abandoned, stats } = await client.close(2000);
  await nextTick();
  const memory = peak.stop();
  return {
    ...memory,
    logged: args.records,
    loggedMs,
    ms: performance.now() - start,
    capAt,
    queuedAtCap,
    atCapMb,
    /** The peak RSS growth after `capAt` records, beyond the growth up to it. */
    afterCapMb: memory.windowPeakMb - atCapMb,
    /** The heap held (after a full GC) once every record was logged, beyond what it held at `capAt`. */
    heapAfterCapMb: heapAfterMb - heapAtCapMb,
    queuedAfterLogging: statsAfterLogging.queued + statsAfterLogging.inFlight,
    stats,
    abandoned,
    resolved,
    rejections: Object.fromEntries(rejections),
    reported: Object.fromEntries(reported),
  };
}

/**
 * What one queued record holds: `turns` turns through the middleware, with the default transport,
 * to an endpoint that takes requests and never answers them; then, after a full GC, the heap and
 * the ArrayBuffer memory (where the default transport's queue keeps pending bodies) per queued record.
 */
async function retained(args: { turns: number }) {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => {
    sockets.add(socket);
    socket.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as net.AddressInfo;
  const { client } = ourClient(`http://127.0.0.1:${port}`, { maxQueueSize: 4 * args.turns, requestTimeoutMs: 600_000 });
  const bot = echoAdapter(ourMiddleware(client));
  // Warm-up, as everywhere else: the same paths once (their records stay queued, and are not counted).
  for (const message of userMessages(2, 200)) await bot.processActivity(message);
  forgetReplies(bot);
  await nextTick();
  await nextTick();
  const messages = userMessages(1, args.turns);
  collectGarbage();
  collectGarbage();
  const before = process.memoryUsage();
  const queuedBefore = client.stats();
  for (const message of messages) await bot.processActivity(message);
  forgetReplies(bot);
  await nextTick();
  await nextTick();
  collectGarbage();
  collectGarbage();
  const after = process.memoryUsage();
  // The turns' activities are held until here: once the loop is done, V8 may free them before
  // `after` is taken (nothing reads them any more), and their 3.5 MB then came off the figure
  // (it read 59 bytes per record, and below zero after a change; held, it reads about 280).
  if (messages.length !== args.turns) throw new Error('the turns changed');
  const stats = client.stats();
  const records = stats.queued + stats.inFlight - (queuedBefore.queued + queuedBefore.inFlight);
  await client.close(0);
  for (const socket of sockets) socket.destroy();
  silent.close();
  const heap = (after.heapUsed - before.heapUsed) / records;
  const buffers = (after.arrayBuffers - before.arrayBuffers) / records;
  return { records, heapPerRecord: heap, buffersPerRecord: buffers, bytesPerRecord: heap + buffers };
}

let unhandled = 0;
process.on('unhandledRejection', () => void unhandled++);
serve({ burst, down, retained, unhandled: () => unhandled });
