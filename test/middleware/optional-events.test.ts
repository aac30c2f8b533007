/**
 * What teams ask to count, off by default: membership changes, handoffs to a human, and the bot's
 * own events and traces.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity } from 'botbuilder';
import { adapterWith, send, startHarness, timed, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const membersUpdate: Partial<Activity> = userMessage({
  type: 'conversationUpdate', text: undefined,
  membersAdded: [{ id: 'bot-1', name: 'Shop bot' }, { id: 'user-1', name: 'Ada' }, { id: 'user-2', name: '' }],
  membersRemoved: [{ id: 'user-3', name: 'Grace' }],
});

describe('trackMembership', () => {
  it('records each member added or removed, the bot excepted, for that member', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackMembership: true });
    await send(adapter, membersUpdate);
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => r.body)).toEqual([
      { type: 'customEvent', name: 'memberAdded', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed({ name: 'Ada' }) },
      { type: 'customEvent', name: 'memberAdded', userId: 'user-2', conversationId: 'conv-1', extraInfo: timed() },
      { type: 'customEvent', name: 'memberRemoved', userId: 'user-3', conversationId: 'conv-1', extraInfo: timed({ name: 'Grace' }) },
    ]);
  });

  it('is off by default', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, membersUpdate);
    expect(await h.records()).toEqual([]);
  });
});

describe('trackHandoffs', () => {
  const initiate = { type: 'event', name: 'handoff.initiate', value: { skill: 'billing', reason: 'asked for a human' }, attachments: [{ contentType: 'application/json', name: 'Transcript', content: { activities: [] } }] } as Partial<Activity>;
  const status = userMessage({ type: 'event', name: 'handoff.status', text: undefined, value: { state: 'accepted' } });

  it('records the handoff the bot starts and the status the channel answers with', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      if (ctx.activity.type === 'message') await ctx.sendActivity(initiate);
    }, { trackHandoffs: true });
    await send(adapter, userMessage({ text: 'a human please' }));
    await send(adapter, status);
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.type, r.body.name ?? r.body.text, r.body.extraInfo])).toEqual([
      ['incoming', 'a human please', undefined],
      ['event', 'handoff.initiate', timed({ skill: 'billing', reason: 'asked for a human' })],
      ['event', 'handoff.status', timed({ state: 'accepted' })],
    ]);
    expect(records[1].body.userId).toBe('user-1');
  });

  it('is off by default: neither is recorded', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      if (ctx.activity.type === 'message') await ctx.sendActivity(initiate);
    });
    await send(adapter, userMessage({ text: 'a human please' }));
    await send(adapter, status);
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming']);
  });
});

describe('trackBotEvents', () => {
  it('records the bot\'s event and trace activities for the user they went to', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity({ type: 'event', name: 'cart-updated', value: { items: 2 } } as Partial<Activity>);
      await ctx.sendActivity({ type: 'trace', name: 'Router', label: 'LLM route', valueType: 'https://example.com/route', value: { route: 'orders', ms: 412 } } as Partial<Activity>);
      await ctx.sendActivity({ type: 'event', name: 'tick', value: 3 } as Partial<Activity>);
      await ctx.sendActivity('done');
    }, { trackBotEvents: true });
    await send(adapter, userMessage({ text: 'go' }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.filter((r) => r.type === 'event').map((r) => r.body)).toEqual([
      { type: 'customEvent', name: 'cart-updated', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed({ items: 2 }) },
      { type: 'customEvent', name: 'trace', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed({ name: 'Router', label: 'LLM route', valueType: 'https://example.com/route', value: { route: 'orders', ms: 412 } }) },
      { type: 'customEvent', name: 'tick', userId: 'user-1', conversationId: 'conv-1', extraInfo: timed({ value: 3 }) },
    ]);
  });

  it('is off by default', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity({ type: 'event', name: 'cart-updated' } as Partial<Activity>);
      await ctx.sendActivity({ type: 'trace', name: 'Router' } as Partial<Activity>);
    });
    await send(adapter, userMessage({ text: 'go' }));
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming']);
  });
});
