/**
 * The bot of the benchmarks: an echo bot on botbuilder's TestAdapter, with or without a tracking
 * middleware, and the user messages it gets. Every message carries a unique marker the sink
 * counts: `q<phase>.<seq>` in, `a<phase>.<seq>` out.
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import { TestAdapter, TranscriptLoggerMiddleware, type Activity, type Middleware, type MiddlewareHandler, type TurnContext } from 'botbuilder';
import { TrackingClient, type TrackingClientOptions } from '../../src/client/index.js';
import { TrackingMiddleware } from '../../src/middleware/index.js';

/** The API key every sender uses. */
export const API_KEY = 'bench-key-0123456789';
/** Users (conversations) the turns of measurements 2 and 3 come from, round-robin. */
export const USERS = 64;

/** The sender being measured. */
export type Sender = 'none' | 'ours' | 'transcript' | 'dashbot';

/** The echo bot: answers each message with its marker's `q` turned into `a`. */
export async function echoBot(context: TurnContext): Promise<void> {
  await context.sendActivity(`a${(context.activity.text ?? '').slice(1)}`);
}

/** A user's message, as a Bot Framework channel (Web Chat) delivers it. */
export function userMessage(phase: number, seq: number, user: number): Partial<Activity> {
  return {
    type: 'message',
    id: `${phase}.${seq}`,
    timestamp: new Date(),
    localTimestamp: new Date(),
    channelId: 'webchat',
    serviceUrl: 'https://webchat.botframework.com/',
    from: { id: `user-${user}`, name: `User ${user}` },
    recipient: { id: 'bench-bot', name: 'Bench bot' },
    conversation: { id: `conversation-${user}` } as Activity['conversation'],
    text: `q${phase}.${seq}`,
    textFormat: 'plain',
    locale: 'en-US',
    channelData: { clientActivityID: `client-${phase}-${seq}` },
  };
}

/** `count` user messages of `phase`, from `users` users in turn. */
export function userMessages(phase: number, count: number, users = USERS): Partial<Activity>[] {
  return Array.from({ length: count }, (_, seq) => userMessage(phase, seq, seq % users));
}

/**
 * Runs `count` turns round-robin over `users` conversations (turn i is conversation i % users, so
 * each conversation's turns stay in order): one turn of every conversation, then a yield to the
 * event loop (I/O, deferred work), as a bot gets a message from each of its busy conversations at
 * once. `turn(i)` gives turn i's activity.
 */
export async function runRoundRobin(bot: TestAdapter, count: number, users: number, turn: (i: number) => Partial<Activity>): Promise<void> {
  for (let i = 0; i < count; i++) {
    await bot.processActivity(turn(i));
    if ((i + 1) % users === 0) {
      forgetReplies(bot);
      await nextTick();
    }
  }
  forgetReplies(bot);
}

/** A transcript logger that stores nothing: the reference row measures the middleware, not a store. */
const nullTranscriptLogger = { logActivity: () => undefined };

/**
 * A client of ours pointed at `baseUrl`, silent (`logger: false`). With `countReports`, an
 * `onError` counts what it reports by reason; without, it reports as by default (no `onError`).
 */
export function ourClient(baseUrl: string, options: Partial<TrackingClientOptions> = {}, countReports = true): { client: TrackingClient; reported: Map<string, number> } {
  const reported = new Map<string, number>();
  const onError: TrackingClientOptions['onError'] = (error) => {
    const reason = (error as { reason?: string }).reason ?? error.name;
    reported.set(reason, (reported.get(reason) ?? 0) + 1);
  };
  const client = new TrackingClient({ apiKey: API_KEY, baseUrl, logger: false, ...(countReports ? { onError } : {}), ...options });
  return { client, reported };
}

/** The dashbot module's botbuilder (microsoft) integration, pointed at `baseUrl`. */
export function dashbotMicrosoft(baseUrl: string): { middleware(): MiddlewareHandler } {
  const require = createRequire(import.meta.url);
  const dashbot = require('dashbot') as (apiKey: string, config: object) => { microsoft: { middleware(): MiddlewareHandler } };
  return dashbot(API_KEY, { urlRoot: `${baseUrl}/track`, debug: false }).microsoft;
}

/** The echo bot on a TestAdapter with `middleware` (none when undefined). */
export function echoAdapter(middleware?: Middleware | MiddlewareHandler): TestAdapter {
  const adapter = new TestAdapter(echoBot);
  if (middleware !== undefined) adapter.use(middleware);
  return adapter;
}

/** A TestAdapter keeps every reply in `activeQueue`; empty it so a long run does not grow it. */
export function forgetReplies(adapter: TestAdapter): void {
  (adapter.activeQueue as unknown[]).length = 0;
}

/** botbuilder's own TranscriptLoggerMiddleware over a logger that stores nothing (the reference). */
export function transcriptMiddleware(): TranscriptLoggerMiddleware {
  return new TranscriptLoggerMiddleware(nullTranscriptLogger);
}

/** `new TrackingMiddleware(client)`. */
export function ourMiddleware(client: TrackingClient): TrackingMiddleware {
  return new TrackingMiddleware(client);
}

const controlAgent = new http.Agent({ keepAlive: false });

/** What the sink counted for a phase. */
export interface SinkCount {
  unique: number;
  total: number;
  /** When the last record arrived, ms since the epoch. */
  lastAt: number;
  /** When the sink answered the last record (its delay included), ms since the epoch. */
  lastAnsweredAt?: number;
  unmarked: number;
  /** Most connections the sender had open at once during the phase. */
  peakSockets?: number;
}

/**
 * Waits until the sink counted `n` distinct records of `phase` (with `answered`: and answered every
 * record of the phase that arrived), or none arrived for `idleMs` (some were lost).
 */
export function sinkWait(sinkUrl: string, phase: number, n: number, idleMs = 5_000, answered = false): Promise<SinkCount> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${sinkUrl}/_bench/wait?phase=${phase}&n=${n}&idleMs=${idleMs}${answered ? '&answered=1' : ''}`, { agent: controlAgent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(JSON.parse(body) as SinkCount));
    });
    req.on('error', reject);
  });
}

/** Now, in ms since the epoch with sub-ms precision (comparable with the sink's `lastAt`). */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Resolves on the next turn of the event loop (after I/O callbacks). */
export function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
