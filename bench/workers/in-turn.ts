/**
 * Measurement 1, in-turn cost: awaited echo-bot turns in tight loops, timed, for each sender.
 *
 * A round runs every sender's turns in short blocks, interleaved (A B C A B C …), so that noise
 * from other processes on a shared machine hits every sender alike. A block never yields to the
 * event loop, so what is timed is only the work done inside the turns; between blocks the worker
 * yields (untimed), which lets our deferred mapping and all delivery run, as they would between
 * a live bot's turns. At the end of a round it waits until the sink has counted every record.
 */
import type { TestAdapter } from 'botbuilder';
import type { TrackingClient } from '../../src/client/index.js';
import { dashbotMicrosoft, echoAdapter, forgetReplies, nextTick, ourClient, ourMiddleware, sinkWait, transcriptMiddleware, userMessages } from '../lib/bot.js';
import { serve } from '../lib/worker.js';

/** The senders of this measurement. `oursSlow` tracks to an endpoint that answers after 200 ms. */
export type InTurnSender = 'none' | 'transcript' | 'ours' | 'oursSlow' | 'dashbot';

export interface InTurnRound {
  senders: InTurnSender[];
  /** Phase of the round; sender i uses phase `phase + i` for its markers. */
  phase: number;
  blocks: number;
  blockTurns: number;
}

export interface InTurnResult {
  /** Turns timed. */
  turns: number;
  /** Wall time of the timed blocks, ms. */
  ms: number;
  /** Records expected at the sink (0 when the sender does not track or is not checked). */
  expected: number;
  /** Distinct records the sink counted. */
  received: number;
  /** Records the client reported as refused or given up, by reason (ours only). */
  reported?: Record<string, number>;
}

let sinkUrl = '';
let ours: { client: TrackingClient; reported: Map<string, number> } | undefined;
const adapters = new Map<InTurnSender, TestAdapter>();

function setup(args: { sinkUrl: string }): void {
  sinkUrl = args.sinkUrl;
  adapters.set('none', echoAdapter());
  adapters.set('transcript', echoAdapter(transcriptMiddleware()));
  ours = ourClient(sinkUrl);
  adapters.set('ours', echoAdapter(ourMiddleware(ours.client)));
  adapters.set('dashbot', echoAdapter(dashbotMicrosoft(sinkUrl).middleware()));
}

async function round(args: InTurnRound): Promise<Record<string, InTurnResult>> {
  const { senders, phase, blocks, blockTurns } = args;
  const n = blocks * blockTurns;
  // A fresh client per round for the slow endpoint (answers after 200 ms): it builds up a backlog
  // during the round (16 requests hanging, the rest queued) and is closed, unflushed, at the end.
  const slow = senders.includes('oursSlow') ? ourClient(`${sinkUrl}/slow`) : undefined;
  if (slow !== undefined) adapters.set('oursSlow', echoAdapter(ourMiddleware(slow.client)));
  const turns = senders.map((_, i) => userMessages(phase + i, n));
  const ms = senders.map(() => 0);
  for (let b = 0; b < blocks; b++) {
    for (let k = 0; k < senders.length; k++) {
      const i = (k + b) % senders.length;
      const adapter = adapters.get(senders[i])!;
      const batch = turns[i];
      const end = (b + 1) * blockTurns;
      const start = performance.now();
      for (let t = b * blockTurns; t < end; t++) await adapter.processActivity(batch[t]);
      ms[i] += performance.now() - start;
      forgetReplies(adapter);
      await nextTick();
    }
  }
  const results: Record<string, InTurnResult> = {};
  for (let i = 0; i < senders.length; i++) {
    const sender = senders[i];
    const result: InTurnResult = { turns: n, ms: ms[i], expected: 0, received: 0 };
    if (sender === 'ours' || sender === 'dashbot') {
      if (sender === 'ours') await ours!.client.flush();
      const counted = await sinkWait(sinkUrl, phase + i, 2 * n);
      result.expected = 2 * n;
      result.received = counted.unique;
      if (sender === 'ours') result.reported = Object.fromEntries(ours!.reported);
    }
    results[sender] = result;
  }
  if (slow !== undefined) {
    await slow.client.close(0);
    results.oursSlow.reported = Object.fromEntries(slow.reported);
  }
  return results;
}

serve({ setup, round });
