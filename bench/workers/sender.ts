/**
 * Measurement 2, delivery cost: one sender per process (`ours`, `dashbot`, `bare`, `oursLog`, `none`),
 * each round timed end to end — turns plus delivery — until the sink has answered every record.
 * CPU is this process's user + system time over the same span (`process.cpuUsage()`). Every
 * sender's input (activities, request bodies, records) is made once, before the first round,
 * and replayed each round, so no sender pays inside the clock for promoting fresh input.
 *
 * - `ours`: the echo bot with `TrackingMiddleware`, turns round-robin over `users` conversations
 *   (`runRoundRobin`: a turn of each, then a yield to the event loop).
 * - `dashbot`: the same bot and turns with dashbot's botbuilder middleware.
 * - `bare`: a `node:http` keep-alive loop POSTing the very requests `ours` sends (captured
 *   before the clock starts), `concurrency` at a time: the practical limit.
 * - `oursLog`: `client.universal.logIncoming`/`logOutgoing` with the same records, no bot.
 * - `none`: the same bot and turns without tracking: the bot's own CPU, to tell it apart.
 */
import type { Activity, TestAdapter } from 'botbuilder';
import type { TrackingClient } from '../../src/client/index.js';
import type { Message } from '../../src/protocol/index.js';
import { dashbotMicrosoft, echoAdapter, epochMs, ourClient, ourMiddleware, runRoundRobin, sinkWait, userMessages, type SinkCount } from '../lib/bot.js';
import { bareLoop } from '../lib/bare.js';
import { captureRequests, type CapturedRequest } from '../lib/capture.js';
import { collectGarbage, serve } from '../lib/worker.js';

export type DeliverySender = 'ours' | 'dashbot' | 'bare' | 'oursLog' | 'none';

export interface DeliverySetup {
  sinkUrl: string;
  /** Turns of a round from `users` conversations, and of a single-user round. */
  turns: number;
  users: number;
  singleUserTurns: number;
}

export interface DeliveryRound {
  /** The phase the sink counts this round's records in (the parent has set it at the sink). */
  phase: number;
  /** 1 for a single-user round, else the setup's `users`. */
  users: number;
  /** Requests in flight at most (the bare loop only; our client's is its `maxConcurrency`, 16). */
  concurrency: number;
}

export interface DeliveryResult {
  turns: number;
  records: number;
  /** Distinct records the sink counted. */
  received: number;
  /** Requests the sink counted (a record sent twice counts twice). */
  requests: number;
  wallMs: number;
  cpuMs: number;
  /** Most connections open at the sink at once that carried the round's records. */
  peakSockets: number;
  /** What our client reported (refused or given up), by reason. */
  reported?: Record<string, number>;
}

const sender = process.argv[2] as DeliverySender;
let sinkUrl = '';
let adapter: TestAdapter | undefined;
let ours: { client: TrackingClient; reported: Map<string, number> } | undefined;

/** A round's input, made once in `setup` (so it is old by the time it is used) and replayed every round. */
interface Input {
  users: number;
  turns: Partial<Activity>[];
  requests: CapturedRequest[];
  logged: { incoming: boolean; message: Message }[];
}
const inputs = new Map<number, Input>();

async function setup(args: DeliverySetup): Promise<void> {
  sinkUrl = args.sinkUrl;
  if (sender === 'ours' || sender === 'oursLog') ours = ourClient(sinkUrl);
  if (sender === 'ours') adapter = echoAdapter(ourMiddleware(ours!.client));
  if (sender === 'dashbot') adapter = echoAdapter(dashbotMicrosoft(sinkUrl).middleware());
  if (sender === 'none') adapter = echoAdapter();
  for (const [users, count] of [
    [args.users, args.turns],
    [1, args.singleUserTurns],
  ]) {
    const turns = userMessages(0, count, users);
    const requests = sender === 'bare' || sender === 'oursLog' ? await captureRequests(sinkUrl, userMessages(0, count, users)) : [];
    const logged = sender === 'oursLog' ? requests.map((r) => ({ incoming: r.url.includes('type=incoming'), message: JSON.parse(r.body) as Message })) : [];
    inputs.set(users, { users, turns, requests, logged });
  }
  collectGarbage();
}

async function round(args: DeliveryRound): Promise<DeliveryResult> {
  const { phase, concurrency } = args;
  const input = inputs.get(args.users)!;
  const records = sender === 'none' ? 0 : 2 * input.turns.length;
  let work: () => Promise<void>;
  if (sender === 'ours' || sender === 'dashbot' || sender === 'none') {
    work = async () => {
      await runRoundRobin(adapter!, input.turns.length, input.users, (i) => input.turns[i]);
      if (sender === 'ours') await ours!.client.flush();
    };
  } else if (sender === 'bare') {
    work = () => bareLoop(input.requests, concurrency);
  } else {
    const client = ours!.client;
    work = async () => {
      for (const { incoming, message } of input.logged) {
        if (incoming) void client.universal.logIncoming(message);
        else void client.universal.logOutgoing(message);
      }
      await client.flush();
    };
  }
  const cpu = process.cpuUsage();
  const start = epochMs();
  await work();
  const counted: SinkCount = records === 0 ? { unique: 0, total: 0, lastAt: 0, unmarked: 0 } : await sinkWait(sinkUrl, phase, records, 5_000, true);
  const used = process.cpuUsage(cpu);
  // The round ends when the sink answered its last record (the sender has every answer then),
  // whoever the sender is; when records were lost, at the last one that arrived.
  const end = records === 0 ? epochMs() : counted.unique >= records ? (counted.lastAnsweredAt ?? epochMs()) : counted.lastAt;
  return {
    turns: input.turns.length,
    records,
    received: counted.unique,
    requests: counted.total,
    wallMs: end - start,
    cpuMs: (used.user + used.system) / 1000,
    peakSockets: counted.peakSockets ?? 0,
    reported: ours === undefined ? undefined : Object.fromEntries(ours.reported),
  };
}

serve({ setup, round, stats: () => ours?.client.stats() });
