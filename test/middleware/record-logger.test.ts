/**
 * What the middleware does off the turn and when tracking itself fails: how failures inside a turn
 * are reported, and how offered buttons are remembered per conversation.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CardFactory, MessageFactory, TestAdapter } from 'botbuilder';
import { TrackingClient } from '../../src/client/index.js';
import { TrackingMiddleware } from '../../src/middleware/index.js';
import { ButtonMemory, CARDS_PER_CONVERSATION, conversationKey } from '../../src/middleware/button-memory.js';
import { adapterWith, send, startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** A client whose `defer` always throws: every tracking step inside a turn fails. */
function brokenClient(): TrackingClient {
  return Object.assign(Object.create(TrackingClient.prototype) as TrackingClient, {
    defer: () => {
      throw new Error('defer broke');
    },
    beginTurn: () => () => undefined,
  });
}

describe('failures inside a turn', () => {
  it('without onError, they are reported as one process warning per middleware, naming the failure; the turns go on', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('fine'))).use(new TrackingMiddleware({ client: brokenClient() }));
      await adapter.send('one').assertReply('fine').send('two').assertReply('fine').startTest();
      const other = new TestAdapter(async (ctx) => void (await ctx.sendActivity('fine'))).use(new TrackingMiddleware({ client: brokenClient() }));
      await other.send('three').assertReply('fine').startTest();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    const ours = warnings.filter((w) => w.name === 'TrackingWarning');
    expect(ours).toHaveLength(2);
    expect(ours[0].message).toBe('Conversation analytics skipped tracking in a turn because tracking code failed; the turn itself was not affected: defer broke');
  });

  it('with onError, each failure goes to it, and an onError that throws never reaches the turn', async () => {
    const seen: unknown[] = [];
    const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('fine'))).use(new TrackingMiddleware({
      client: brokenClient(),
      onError: (error) => {
        seen.push(error);
        throw new Error('onError broke too');
      },
    }));
    await adapter.send('one').assertReply('fine').startTest();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((e) => (e as Error).message === 'defer broke')).toBe(true);
  });

  it('a failure whose error is not an Error is reported with its text', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const client = Object.assign(brokenClient(), { defer: () => { throw 'plain text'; } });
      const adapter = new TestAdapter(async () => undefined).use(new TrackingMiddleware({ client }));
      await adapter.send('one').startTest();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'TrackingWarning').map((w) => w.message)).toEqual(['Conversation analytics skipped tracking in a turn because tracking code failed; the turn itself was not affected: plain text']);
  });
});

describe('what the off-turn work records', () => {
  it('a failure whose error is null is reported with its text', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const client = Object.assign(brokenClient(), { defer: () => { throw null; } });
      const adapter = new TestAdapter(async () => undefined).use(new TrackingMiddleware({ client }));
      await adapter.send('one').startTest();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'TrackingWarning').map((w) => w.message)).toEqual(['Conversation analytics skipped tracking in a turn because tracking code failed; the turn itself was not affected: null']);
  });

  it('with trackEventActivities, an event activity that is no event (an adapter\'s own ContinueConversation) is not recorded and no error is reported', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    await send(adapter, userMessage({ type: 'event', name: 'ContinueConversation', text: undefined }));
    await send(adapter, userMessage({ type: 'event', name: 'webchat/join', text: undefined }));
    const records = await h.records();
    expect(records.map((r) => r.body.name)).toEqual(['webchat/join']);
    expect(h.errors).toEqual([]);
  });

  it("replies without buttons do not push a card's buttons out of memory: they stay clickable after more replies than the messages remembered", async () => {
    const bot = async (ctx: import('botbuilder').TurnContext) => {
      if (ctx.activity.text === 'menu') await ctx.sendActivity(MessageFactory.attachment(CardFactory.heroCard('Menu', undefined, [{ type: 'imBack', title: 'Pizza', value: 'pizza' }])));
      else if (ctx.activity.text === 'hours?') await ctx.sendActivity('We open at 9.');
    };
    const adapter = adapterWith(h, bot);
    await send(adapter, userMessage({ text: 'menu' }));
    for (let i = 0; i < CARDS_PER_CONVERSATION + 1; i++) await send(adapter, userMessage({ text: 'hours?' }));
    await send(adapter, userMessage({ text: 'pizza' }));
    const clicks = (await h.records()).filter((r) => r.type === 'incoming').map((r) => r.body.postback?.buttonClick.buttonId);
    expect(clicks.at(-1)).toBe('pizza');
    expect(clicks.slice(0, -1).every((c) => c === undefined)).toBe(true);
    expect(h.errors).toEqual([]);
  });
});

describe('remembered buttons', () => {
  const offer = async (adapter: TestAdapter, conversation: string) => {
    await send(adapter, userMessage({ text: 'menu', conversation: { id: conversation } as never }));
  };
  const click = async (adapter: TestAdapter, conversation: string) => {
    await send(adapter, userMessage({ text: 'pizza', conversation: { id: conversation } as never }));
  };
  const bot = async (ctx: import('botbuilder').TurnContext) => {
    if (ctx.activity.text === 'menu') await ctx.sendActivity({ type: 'message', text: 'Pick', suggestedActions: { to: [], actions: [{ type: 'imBack', title: 'Pizza', value: 'pizza' }] } });
  };
  const clicks = async () => (await h.records()).filter((r) => r.type === 'incoming' && r.body.text === 'pizza').map((r) => r.body.postback?.buttonClick.buttonId);

  it('rememberButtons: 0 turns click recognition off', async () => {
    const adapter = adapterWith(h, bot, { rememberButtons: 0 });
    await offer(adapter, 'a');
    await click(adapter, 'a');
    expect(await clicks()).toEqual([undefined]);
  });

  it('with room for one conversation, the one offered buttons longest ago is forgotten', async () => {
    const adapter = adapterWith(h, bot, { rememberButtons: 1 });
    await offer(adapter, 'a');
    await offer(adapter, 'b');
    await click(adapter, 'a');
    await click(adapter, 'b');
    expect(await clicks()).toEqual([undefined, 'pizza']);
  });

  it('by default, a click is recognised in its own conversation only', async () => {
    const adapter = adapterWith(h, bot);
    await offer(adapter, 'a');
    await click(adapter, 'b');
    await click(adapter, 'a');
    expect(await clicks()).toEqual([undefined, 'pizza']);
  });

  it('ButtonMemory: offering again makes a conversation the most recent; offering no buttons keeps the ones before; capacity 0 remembers none', () => {
    const pizza = [{ id: 'p', label: 'Pizza', value: 'pizza' }];
    const memory = new ButtonMemory(2);
    memory.remember('a', pizza);
    memory.remember('b', pizza);
    memory.remember('a', pizza);
    memory.remember('c', pizza);
    expect([memory.offered('a'), memory.offered('b'), memory.offered('c')]).toEqual([[pizza, pizza], undefined, [pizza]]);
    memory.remember('a', []);
    expect(memory.offered('a')).toEqual([pizza, pizza]);
    const none = new ButtonMemory(0);
    none.remember('a', pizza);
    expect(none.offered('a')).toBeUndefined();
  });

  it('the same conversation id on two channels is two conversations; a numeric id counts as its digits', () => {
    expect(conversationKey({ channelId: 'webchat', conversation: { id: 'c1' } })).not.toBe(conversationKey({ channelId: 'msteams', conversation: { id: 'c1' } }));
    expect(conversationKey({ channelId: 'twitter', conversation: { id: 42 as never } })).toBe(conversationKey({ channelId: 'twitter', conversation: { id: '42' } }));
    expect(conversationKey({ channelId: 'x', conversation: { id: {} as never } })).toBe(conversationKey({ channelId: 'x' }));
  });
});
