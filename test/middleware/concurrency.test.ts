import { afterEach, beforeEach, expect, it } from 'vitest';
import { TestAdapter } from 'botbuilder';
import { setIntent, setOutgoingIntent, TrackingMiddleware } from '../../src/middleware/index.js';
import { startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** A small seeded PRNG, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

it('50 users × 5 interleaved turns with random delays: every record has its own turn\'s intent, in order per user', async () => {
  const USERS = 50;
  const TURNS = 5;
  const rand = random(20240501);
  const pause = () => new Promise((resolve) => setTimeout(resolve, Math.floor(rand() * 4)));
  const adapter = new TestAdapter(async (ctx) => {
    const text = ctx.activity.text ?? '';
    await pause();
    setIntent(ctx, { name: `in:${text}`, inputs: [{ name: 'user', value: ctx.activity.from.id }] });
    await pause();
    setOutgoingIntent(ctx, `out:${text}`);
    await ctx.sendActivity(`reply to ${text}`);
    await pause();
    await ctx.sendActivity(`more on ${text}`);
  });
  adapter.use(new TrackingMiddleware(h.client));

  // Each user's turns run one after another, as in a real conversation; users run side by side.
  await Promise.all(
    Array.from({ length: USERS }, async (_, u) => {
      for (let t = 0; t < TURNS; t++) {
        await adapter.processActivity(userMessage({ from: { id: `user-${u}`, name: '' }, conversation: { id: `conv-${u}` } as never, text: `u${u}t${t}` }));
      }
    }),
  );
  const records = await h.records();
  expect(records).toHaveLength(USERS * TURNS * 3);
  expect(h.errors).toEqual([]);

  for (let u = 0; u < USERS; u++) {
    const mine = records.filter((r) => r.body.userId === `user-${u}`).map((r) => [r.type, r.body.text, r.body.intent?.name]);
    const expected = Array.from({ length: TURNS }, (_, t) => [
      ['incoming', `u${u}t${t}`, `in:u${u}t${t}`],
      ['outgoing', `reply to u${u}t${t}`, `out:u${u}t${t}`],
      ['outgoing', `more on u${u}t${t}`, undefined],
    ]).flat();
    expect(mine).toEqual(expected);
  }
  const incoming = records.filter((r) => r.type === 'incoming');
  expect(incoming.every((r) => r.body.intent.inputs[0].value === r.body.userId)).toBe(true);
});
