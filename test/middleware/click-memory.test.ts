/**
 * Clicks on older cards: the middleware remembers the buttons of the last CARDS_PER_CONVERSATION
 * messages with buttons of each conversation (newest first; the older ones with their cards'
 * buttons only, as clients hide suggested actions once another message arrives), so a click on any
 * of them is a click; which button a click names when several messages could hold it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity, TurnContext } from 'botbuilder';
import { buttonClickOf, isTaskFetchClick } from '../../src/middleware/attachments.js';
import { ButtonMemory, CARDS_PER_CONVERSATION } from '../../src/middleware/button-memory.js';
import type { Button } from '../../src/protocol/index.js';
import { adapterWith, send, startHarness, userMessage, type Harness } from './harness.js';

const b = (id: string, label: string, value: string): Button => ({ id, label, value });

describe('ButtonMemory', () => {
  it(`keeps the last ${CARDS_PER_CONVERSATION} messages with buttons of a conversation, newest first`, () => {
    expect(CARDS_PER_CONVERSATION).toBe(5);
    const memory = new ButtonMemory(10);
    for (let i = 1; i <= 6; i++) memory.remember('c', [b(`card-${i}`, `Card ${i}`, `v${i}`)]);
    expect(memory.offered('c')).toEqual([6, 5, 4, 3, 2].map((i) => [b(`card-${i}`, `Card ${i}`, `v${i}`)]));
  });

  it('the newest message offers its suggested actions too; an older one only its card buttons, and one left with none is left out', () => {
    const memory = new ButtonMemory(10);
    const card = b('order', 'Order', 'order');
    const yes = b('yes', 'Yes', 'yes');
    memory.remember('c', [yes], 1);
    expect(memory.offered('c')).toEqual([[yes]]);
    memory.remember('c', [card, yes], 1);
    expect(memory.offered('c')).toEqual([[card, yes]]);
    memory.remember('c', [b('more', 'More', 'more'), yes], 1);
    expect(memory.offered('c')).toEqual([[b('more', 'More', 'more'), yes], [card]]);
  });

  it('a message without buttons hides the suggested actions of the newest, keeps its card buttons, and changes nothing for a conversation not remembered', () => {
    const memory = new ButtonMemory(10);
    const card = b('order', 'Order', 'order');
    const yes = b('yes', 'Yes', 'yes');
    memory.remember('c', [card, yes], 1);
    memory.remember('c', []);
    expect(memory.offered('c')).toEqual([[card]]);
    memory.remember('only-suggested', [yes], 1);
    memory.remember('only-suggested', []);
    expect(memory.offered('only-suggested')).toEqual([]);
    memory.remember('unknown', []);
    expect(memory.offered('unknown')).toBeUndefined();
  });

  it('bounded over conversations: beyond capacity the one used longest ago goes, and looking one up counts as using it', () => {
    const memory = new ButtonMemory(2);
    const pizza = [b('p', 'Pizza', 'pizza')];
    memory.remember('a', pizza);
    memory.remember('b', pizza);
    expect(memory.offered('a')).toEqual([pizza]);
    memory.remember('c', pizza);
    expect([memory.offered('a'), memory.offered('b'), memory.offered('c')]).toEqual([[pizza], undefined, [pizza]]);
  });
});

describe('which button a click names when several messages offered buttons (newest first)', () => {
  const message = (fields: Record<string, unknown>) => ({ type: 'message', ...fields });

  it('text: a button of an older message is matched; the newest message wins when both have one with that value', () => {
    const offered = [[b('yes', 'Yes', 'yes'), b('no', 'No', 'no')], [b('close-1', 'Close', 'close the ticket INC0010001')], [b('old-yes', 'Yes!', 'yes')]];
    expect(buttonClickOf(message({ text: 'close the ticket INC0010001' }), offered)).toBe('close-1');
    expect(buttonClickOf(message({ text: 'yes' }), offered)).toBe('yes');
    expect(buttonClickOf(message({ text: 'Yes!' }), offered)).toBe('old-yes');
    expect(buttonClickOf(message({ text: 'close it' }), offered)).toBeUndefined();
  });

  it("text: a value in an older message beats a label in the newest", () => {
    expect(buttonClickOf(message({ text: 'Large' }), [[b('size', 'Large', 'L')], [b('large', 'Big', 'Large')]])).toBe('large');
  });

  it('a submit: data held in an older message beats the newest message\'s one button without data', () => {
    const offered = [[b('Send', 'Send', '')], [b('approve', 'Approve', '{"action":"approve"}'), b('reject', 'Reject', '{"action":"reject"}')]];
    expect(buttonClickOf(message({ value: { action: 'reject', note: 'too much' } }), offered)).toBe('reject');
    expect(buttonClickOf(message({ value: { amount: '12' } }), offered)).toBe('Send');
  });

  it('a submit: the newest message with data it holds wins', () => {
    const offered = [[b('new', 'Go', '{"go":1}')], [b('old', 'Go', '{"go":1}')]];
    expect(buttonClickOf(message({ value: { go: 1 } }), offered)).toBe('new');
  });

  it('a submit matching no data: the newest message with buttons without data decides, and only when it has exactly one', () => {
    const form = [b('Send', 'Send', '')];
    const twoForms = [b('A', 'A', ''), b('B', 'B', '{}')];
    const noDataless = [b('x', 'X', '{"x":1}')];
    expect(buttonClickOf(message({ value: { note: 'n' } }), [noDataless, form, twoForms])).toBe('Send');
    expect(buttonClickOf(message({ value: { note: 'n' } }), [noDataless, twoForms, form])).toBe('{"note":"n"}');
  });

  it("Teams' messageBack: its text names a button of an older message", () => {
    expect(buttonClickOf(message({ text: 'go3', value: { extra: 'e' } }), [[b('n', 'N', 'next')], [b('go', 'Go', 'go3')]])).toBe('go');
  });

  it('an Action.Execute invoke names the button of an older message with its verb; a task/fetch carries the data of one', () => {
    const offered = [[b('yes', 'Yes', 'yes')], [b('approve', 'Approve', 'approve'), b('dialog', 'Details', '{"dialog":"details"}')]];
    const invoke = (name: string, value: Record<string, unknown>) => ({ type: 'invoke', name, value });
    expect(buttonClickOf(invoke('adaptiveCard/action', { action: { type: 'Action.Execute', verb: 'approve' } }), offered)).toBe('approve');
    expect(buttonClickOf(invoke('task/fetch', { data: { dialog: 'details' } }), offered)).toBe('dialog');
    expect(isTaskFetchClick(invoke('task/fetch', { data: { dialog: 'details' } }), offered)).toBe(true);
    expect(isTaskFetchClick(invoke('task/fetch', { data: { dialog: 'other' } }), offered)).toBe(false);
  });

  it('with nothing remembered: no text click; a value is itself', () => {
    expect(buttonClickOf(message({ text: 'yes' }), undefined)).toBeUndefined();
    expect(buttonClickOf(message({ text: 'yes' }), [])).toBeUndefined();
    expect(buttonClickOf(message({ value: { a: 1 } }), undefined)).toBe('{"a":1}');
  });
});

describe('through the middleware', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  /** A bot that answers `card N` with a card whose one button is `pick N`, `ask` with yes/no suggested actions, and anything else with plain text. */
  const bot = async (ctx: TurnContext) => {
    const text = ctx.activity.text ?? '';
    const card = /^card (\d+)$/.exec(text);
    if (card) {
      await ctx.sendActivity({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.hero', content: { title: `Card ${card[1]}`, buttons: [{ type: 'imBack', title: `Pick ${card[1]}`, value: `pick ${card[1]}` }] } }] });
    } else if (text === 'ask') {
      await ctx.sendActivity({ type: 'message', text: 'Sure?', suggestedActions: { to: [], actions: [{ type: 'imBack', title: 'Yes', value: 'yes' }, { type: 'imBack', title: 'No', value: 'no' }] } } as Partial<Activity>);
    } else if (!text.startsWith('quiet')) {
      await ctx.sendActivity(`You said ${text}`);
    }
  };
  const clicks = async () => (await h.records()).filter((r) => r.type === 'incoming').map((r) => [r.body.text, r.body.postback?.buttonClick.buttonId]);

  it(`a click on any of the last ${CARDS_PER_CONVERSATION} cards is a click; on an older one it is text`, async () => {
    const adapter = adapterWith(h, bot);
    for (let i = 1; i <= 6; i++) await send(adapter, userMessage({ text: `card ${i}` }));
    await send(adapter, userMessage({ text: 'quiet pick 2' }));
    await send(adapter, userMessage({ text: 'pick 2' }));
    await send(adapter, userMessage({ text: 'pick 1' }));
    expect((await clicks()).slice(6)).toEqual([['quiet pick 2', undefined], ['pick 2', 'pick 2'], ['pick 1', undefined]]);
  });

  it('suggested actions are clicks while theirs is the newest message; after the next message, they are text; the cards before stay clickable', async () => {
    const adapter = adapterWith(h, bot);
    await send(adapter, userMessage({ text: 'card 1' }));
    await send(adapter, userMessage({ text: 'ask' }));
    await send(adapter, userMessage({ text: 'quiet yes' }));
    await send(adapter, userMessage({ text: 'yes' }));
    await send(adapter, userMessage({ text: 'yes' }));
    await send(adapter, userMessage({ text: 'pick 1' }));
    expect((await clicks()).slice(2)).toEqual([['quiet yes', undefined], ['yes', 'yes'], ['yes', undefined], ['pick 1', 'pick 1']]);
  });

  it('a hostile suggestedActions (a getter that throws) costs the buttons of that message only', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      if (ctx.activity.text === 'card 1') await bot(ctx);
      else await ctx.sendActivity(Object.defineProperty({ type: 'message', text: 'broken' }, 'suggestedActions', { get() { throw new Error('no'); }, enumerable: false }) as Partial<Activity>);
    });
    await send(adapter, userMessage({ text: 'card 1' }));
    await send(adapter, userMessage({ text: 'broken please' }));
    await send(adapter, userMessage({ text: 'pick 1' }));
    expect(h.errors).toEqual([]);
    expect((await clicks()).at(-1)).toEqual(['pick 1', 'pick 1']);
  });
});
