/**
 * Invokes: the clicks that arrive as invokes are recorded like messages (an Adaptive Card
 * Action.Execute a user clicked, a task/fetch that carries a button the bot offered); no other
 * invoke is recorded as a message.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter, type Activity } from 'botbuilder';
import { ReceiveMiddleware } from '../../src/middleware/index.js';
import { adapterWith, send, startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** A card with a button that opens a Teams dialog (task/fetch), a plain submit, and a hero card's invoke button. */
const DIALOG_CARD = {
  contentType: 'application/vnd.microsoft.card.adaptive',
  content: {
    type: 'AdaptiveCard', version: '1.5',
    body: [{ type: 'TextBlock', text: 'Your order' }],
    actions: [
      { type: 'Action.Submit', title: 'Change address', data: { msteams: { type: 'task/fetch' }, dialog: 'address' } },
      { type: 'Action.Submit', title: 'Confirm', data: { confirm: true } },
    ],
  },
};
const HERO_WITH_INVOKE = {
  contentType: 'application/vnd.microsoft.card.hero',
  content: { title: 'Help', buttons: [{ type: 'invoke', title: 'Open help', value: { type: 'task/fetch', topic: 'delivery' } }] },
};

const invoke = (name: string, value: unknown): Partial<Activity> => userMessage({ type: 'invoke', name, text: undefined, value });

/** An adapter whose bot offers both cards on "order", and answers every invoke. */
function offeringBot() {
  return adapterWith(h, async (ctx) => {
    if (ctx.activity.type === 'message') await ctx.sendActivity({ type: 'message', attachments: [DIALOG_CARD, HERO_WITH_INVOKE] });
    else await ctx.sendActivity({ type: 'invokeResponse', value: { status: 200 } });
  });
}

describe('task/fetch', () => {
  it('a task/fetch carrying the data of an Adaptive Card button the bot offered is a click on that button', async () => {
    const adapter = offeringBot();
    await send(adapter, userMessage({ text: 'order' }));
    await send(adapter, invoke('task/fetch', { data: { msteams: { type: 'task/fetch' }, dialog: 'address' }, context: { theme: 'dark' } }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.type, r.body.text, r.body.postback?.buttonClick.buttonId])).toEqual([
      ['incoming', 'order', undefined],
      ['outgoing', 'Your order', undefined],
      ['incoming', '', '{"dialog":"address"}'],
    ]);
    expect(records[1].body.buttons.map((b: { id: string }) => b.id)).toContain('{"dialog":"address"}');
  });

  it("a task/fetch from a Bot Framework card's invoke button is a click on it", async () => {
    const adapter = offeringBot();
    await send(adapter, userMessage({ text: 'order' }));
    await send(adapter, invoke('task/fetch', { type: 'task/fetch', topic: 'delivery', context: { theme: 'default' } }));
    const records = await h.records();
    expect(records.at(-1)?.body.postback).toEqual({ buttonClick: { buttonId: '{"type":"task/fetch","topic":"delivery"}' } });
  });

  it('a task/fetch that carries no offered button is not recorded, nor is any task/fetch without TrackingMiddleware', async () => {
    const adapter = offeringBot();
    await send(adapter, userMessage({ text: 'order' }));
    await send(adapter, invoke('task/fetch', { data: { msteams: { type: 'task/fetch' }, dialog: 'unknown' } }));
    await send(adapter, invoke('task/fetch', { data: 'address' }));
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming', 'outgoing']);
    // ReceiveMiddleware never sees what was offered, so it cannot tell a click: it records none.
    const receiveOnly = new TestAdapter(async () => undefined);
    receiveOnly.use(new ReceiveMiddleware(h.client));
    await send(receiveOnly, invoke('task/fetch', { data: { msteams: { type: 'task/fetch' }, dialog: 'address' } }));
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming', 'outgoing']);
  });
});

describe('adaptiveCard/action', () => {
  const execute = { type: 'Action.Execute', verb: 'refresh', data: { order: 7 } };

  it("an automatic refresh (trigger 'automatic') is not a click and is not recorded; a manual one is", async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, invoke('adaptiveCard/action', { action: execute, trigger: 'automatic' }));
    expect(await h.records()).toEqual([]);
    await send(adapter, invoke('adaptiveCard/action', { action: execute, trigger: 'manual' }));
    await send(adapter, invoke('adaptiveCard/action', { action: execute }));
    expect((await h.records()).map((r) => [r.type, r.body.postback])).toEqual([
      ['incoming', { buttonClick: { buttonId: 'refresh' } }],
      ['incoming', { buttonClick: { buttonId: 'refresh' } }],
    ]);
  });
});

describe('other invokes', () => {
  it('are never recorded as messages, with every option on', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true, trackMembership: true, trackHandoffs: true, trackBotEvents: true });
    const others: [string, unknown][] = [
      ['composeExtension/query', { commandId: 'search', parameters: [{ name: 'q', value: 'pizza' }] }],
      ['composeExtension/submitAction', { commandId: 'share', data: { x: 1 } }],
      ['task/submit', { data: { address: 'Main St 1' } }],
      ['signin/verifyState', { state: '123456' }],
      ['signin/tokenExchange', { id: 'x', connectionName: 'graph', token: 'eyJ…' }],
      ['fileConsent/invoke', { action: 'accept' }],
      ['actionableMessage/executeAction', { body: '{}' }],
      ['message/submitAction', { actionName: 'other', actionValue: {} }],
      ['adaptiveCard/action', { trigger: 'manual' }], // no action: nothing was clicked
      ['healthCheck', {}],
    ];
    for (const [name, value] of others) await send(adapter, invoke(name, value));
    expect(await h.records()).toEqual([]);
  });
});
