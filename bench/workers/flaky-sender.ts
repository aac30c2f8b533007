/**
 * Measurement 7's sender: a plain script's way of using the client. Each round makes a client on
 * the defaults, logs `records` records for `users` users (one after another per user: each user's
 * order), awaits `client.flush()` and returns how long that took and the client's counts.
 */
import { TrackingClient } from '../../src/client/index.js';
import { serve } from '../lib/worker.js';

export interface FlakyRound {
  wallMs: number;
  delivered: number;
  givenUp: number;
  retried: number;
}

serve({
  async round(args: { url: string; records: number; users: number }): Promise<FlakyRound> {
    const client = new TrackingClient({ apiKey: 'bench-flaky-key', baseUrl: args.url, logger: false });
    const started = performance.now();
    for (let i = 0; i < args.records; i++) void client.universal.logIncoming({ text: `r${i}`, userId: `user-${i % args.users}` });
    const flushed = await client.flush();
    const wallMs = performance.now() - started;
    const { retried } = client.stats();
    await client.close();
    return { wallMs, delivered: flushed.delivered, givenUp: flushed.givenUp, retried };
  },
});
