/**
 * The id of an outgoing message in its record's `platformJson`: the id the channel gave the reply
 * (its ResourceResponse), which is what a user's feedback on the reply refers to (`replyToId`).
 *
 * Both SDKs' TurnContext copy the ResourceResponse's id onto the activity once the channel
 * answered, so the record has it anyway (agents-sdk.e2e.test.ts shows it over HTTP). These tests
 * cover the turns where that copy does not happen: a send handler inside the middleware's that
 * answers for the channel itself (a relay, a test double), so the activity reaches the record
 * without an id, or with one of its own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity, ResourceResponse, TurnContext } from 'botbuilder';
import { adapterWith, send, startHarness, userMessage, type Bot, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/**
 * A TestAdapter with the tracking middleware in front of `bot`, and inside it a send handler that
 * answers every send with `answer(activities)` instead of passing it on: the TurnContext never
 * sees the channel's answer, so it does not set the activities' ids.
 */
function answeringFor(bot: Bot, answer: (activities: Partial<Activity>[]) => ResourceResponse[]) {
  const adapter = adapterWith(h, bot);
  adapter.use({
    onTurn: async (ctx: TurnContext, next) => {
      ctx.onSendActivities(async (_ctx, activities) => answer(activities));
      await next();
    },
  });
  return adapter;
}

describe("an outgoing record's platformJson.id", () => {
  it("is the channel's id for the reply when the activity has none, each reply its own", async () => {
    const sent: Partial<Activity>[] = [];
    const adapter = answeringFor(async (ctx) => void (await ctx.sendActivities([{ text: 'first' }, { text: 'second' }])), (activities) => {
      sent.push(...activities);
      return [{ id: 'channel-id-1' }, { id: 'channel-id-2' }];
    });
    await send(adapter, userMessage());
    // The activities went out without an id: the id can only come from the channel's answer.
    expect(sent.map((a) => a.id)).toEqual([undefined, undefined]);
    const outgoing = (await h.records()).filter((r) => r.type === 'outgoing');
    expect(outgoing.map((r) => [r.body.text, r.body.platformJson.id])).toEqual([
      ['first', 'channel-id-1'],
      ['second', 'channel-id-2'],
    ]);
    // The record's copy has the id; the activity the bot sent is not changed.
    expect(sent.map((a) => a.id)).toEqual([undefined, undefined]);
  });

  it('keeps the id the activity already has, rather than the id in the answer', async () => {
    const adapter = answeringFor(async (ctx) => void (await ctx.sendActivity('stamped')), (activities) => {
      activities[0].id = 'own-id-7';
      return [{ id: 'channel-id-1' }];
    });
    await send(adapter, userMessage());
    const outgoing = (await h.records()).find((r) => r.type === 'outgoing');
    expect(outgoing?.body.platformJson.id).toBe('own-id-7');
  });

  it('has no id when the answer has none, or an empty one', async () => {
    const answers: ResourceResponse[][] = [[{ id: '' }], [{} as ResourceResponse], []];
    for (const answer of answers) {
      await send(answeringFor(async (ctx) => void (await ctx.sendActivity('no id')), () => answer), userMessage());
    }
    const outgoing = (await h.records()).filter((r) => r.type === 'outgoing');
    expect(outgoing).toHaveLength(3);
    for (const record of outgoing) expect(record.body.platformJson).not.toHaveProperty('id');
  });
});
