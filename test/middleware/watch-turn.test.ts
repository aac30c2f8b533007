/**
 * What the middleware does inside a turn: which activities it watches, in which order their
 * records go, and that ordinary turns report no tracking failure.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter, type Activity } from 'botbuilder';
import { ReceiveMiddleware, SendMiddleware, setIntent, trackEvent } from '../../src/middleware/index.js';
import { adapterWith, send, startHarness, timed, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** The Teams feedback invoke: thumbs down on reply `reply-9`. */
const feedback = userMessage({ type: 'invoke', name: 'message/submitAction', text: undefined, channelId: 'msteams', replyToId: 'reply-9', value: { actionName: 'feedback', actionValue: { reaction: 'dislike', feedback: '{"feedbackText":"wrong answer"}' } } });

describe('watching a turn', () => {
  it('the Teams feedback invoke is recorded as a feedback event through the middleware, and not with trackFeedback: false', async () => {
    await send(adapterWith(h, async () => undefined), feedback);
    await send(adapterWith(h, async () => undefined, { trackFeedback: false }), feedback);
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body])).toEqual([
      ['event', { type: 'customEvent', name: 'feedback', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed({ reaction: 'dislike', feedbackText: 'wrong answer', replyToId: 'reply-9' }) }],
    ]);
  });

  it('an Action.Execute invoke is still recorded as a message when feedback tracking is on', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, userMessage({ type: 'invoke', name: 'adaptiveCard/action', text: undefined, value: { action: { type: 'Action.Execute', verb: 'approve' } } }));
    expect((await h.records()).map((r) => [r.type, r.body.postback])).toEqual([['incoming', { buttonClick: { buttonId: 'approve' } }]]);
  });

  it('ordinary turns, with and without replies, events and traces, report no tracking failure', async () => {
    const reported: unknown[] = [];
    const adapter = adapterWith(h, async (ctx) => {
      trackEvent(ctx, { type: 'customEvent', name: 'seen' });
      if (ctx.activity.text === 'talk') {
        await ctx.sendActivities([{ type: 'typing' }, { type: 'message', text: 'one' }, { type: 'message', text: 'two' }]);
        await ctx.sendActivity({ type: 'trace', name: 'Debug', value: { x: 1 } } as Partial<Activity>);
      }
    }, { onError: (error) => reported.push(error), trackBotEvents: true });
    await send(adapter, userMessage({ text: 'talk' }));
    await send(adapter, userMessage({ text: 'quiet' }));
    const records = await h.records();
    expect(reported).toEqual([]);
    expect(records.map((r) => [r.type, r.body.text ?? r.body.name])).toEqual([
      ['incoming', 'talk'], ['event', 'seen'], ['outgoing', 'one'], ['outgoing', 'two'], ['event', 'trace'],
      ['incoming', 'quiet'], ['event', 'seen'],
    ]);
  });

  it("ReceiveMiddleware and SendMiddleware with clients of their own: trackEvent goes through the first one's client", async () => {
    const other = await startHarness();
    try {
      const adapter = new TestAdapter(async (ctx) => void trackEvent(ctx, { type: 'customEvent', name: 'once' }));
      adapter.use(new ReceiveMiddleware(h.client)).use(new SendMiddleware(other.client));
      await adapter.send('hi').startTest();
      expect((await h.records()).map((r) => r.type)).toEqual(['incoming', 'event']);
      expect(await other.records()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("a recognizer trace's intent is kept when a trace without a recognizer result follows it, and a bot event with a recognizer-like value is not read as an intent", async () => {
    const luis = { type: 'trace', name: 'LuisRecognizer', valueType: 'https://www.luis.ai/schemas/trace', value: { recognizerResult: { text: 'x', intents: { Book: { score: 0.9 } } } } };
    const adapter = adapterWith(h, async (ctx) => {
      if (ctx.activity.text === 'one') await ctx.sendActivities([luis, { type: 'trace', name: 'Debug', value: { x: 1 } }] as Partial<Activity>[]);
      else await ctx.sendActivity({ type: 'event', name: 'ui', value: { text: 'x', intents: { Wrong: { score: 1 } } } } as Partial<Activity>);
      await ctx.sendActivity('reply');
    });
    await send(adapter, userMessage({ text: 'one' }));
    await send(adapter, userMessage({ text: 'two' }));
    const incoming = (await h.records()).filter((r) => r.type === 'incoming');
    expect(incoming.map((r) => r.body.intent)).toEqual([{ name: 'Book', inputs: [{ name: 'score', value: '0.9' }] }, undefined]);
  });

  it("trackBotEvents: an event the bot sends after its reply is recorded after it; only event and trace activities become events", async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity('reply');
      await ctx.sendActivities([{ type: 'event', name: 'after' }, { type: 'endOfConversation', name: 'bye' }, { type: 'typing', name: 'typing' }] as Partial<Activity>[]);
    }, { trackBotEvents: true });
    await send(adapter, userMessage({ text: 'hi' }));
    expect((await h.records()).map((r) => [r.type, r.body.text ?? r.body.name])).toEqual([['incoming', 'hi'], ['outgoing', 'reply'], ['event', 'after']]);
  });

  it('a turn whose incoming activity is not tracked records the events the bot sends right away', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity({ type: 'event', name: 'pong' } as Partial<Activity>)), { trackBotEvents: true });
    await send(adapter, userMessage({ type: 'event', name: 'ping', text: undefined }));
    expect((await h.records()).map((r) => [r.type, r.body.name])).toEqual([['event', 'pong']]);
  });

  it('an explicit intent set before a recognizer trace is kept', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      setIntent(ctx, 'Mine');
      await ctx.sendActivity({ type: 'trace', value: { text: 'x', intents: { Theirs: { score: 1 } } } } as Partial<Activity>);
      await ctx.sendActivity('ok');
    });
    await send(adapter, userMessage());
    expect((await h.records())[0].body.intent).toEqual({ name: 'Mine', inputs: [] });
  });
});
