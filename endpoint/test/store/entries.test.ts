/**
 * What a stored record shows in a transcript (and what the store indexes of it), for each platform
 * shape: transcriptEntries() on records as the endpoint stores them.
 */
import { describe, expect, it } from 'vitest';
import { transcriptEntries } from '../../src/store/entries.js';
import type { StoredRecord } from '../../src/index.js';

const RECEIVED = '2026-10-01T12:00:00.000Z';
const record = (type: StoredRecord['type'], body: unknown, kind: StoredRecord['platformKind'] = 'universal', platform: string | null = 'universal'): StoredRecord => ({
  seq: 7, receivedAt: RECEIVED, occurredAt: RECEIVED, platform, platformKind: kind, v: '10.1.1-rest', type, bot: 'abcdefabcdef', body,
});
const one = (r: StoredRecord) => {
  const entries = transcriptEntries(r);
  expect(entries).toHaveLength(1);
  return entries[0];
};
const timeOf = (timestamp: unknown) => one(record('incoming', { text: 'x', userId: 'u', platformJson: { timestamp } })).time;

describe('a message of the universal and direct-message platforms', () => {
  it('shows what the user said: text, user and name, conversation, channel, intent with its confidence, clicked button, images', () => {
    expect(transcriptEntries(record('incoming', {
      text: 'Large please', userId: 'ann',
      intent: { name: 'Order', inputs: [{ name: 'size', value: 'L' }, { name: 'score', value: '0.8' }] },
      postback: { buttonClick: { buttonId: 'large' } },
      images: [{ url: 'https://x/a.png' }, { nope: 1 }, 'str', { url: 5 }],
      platformJson: { timestamp: '2026-10-01T10:00:00Z', conversation: { id: 'c1' }, channelId: 'webchat', from: { id: 'ann', name: 'Ann' }, recipient: { name: 'Bot' }, id: 'act-1' },
    }))).toEqual([{
      seq: 7, time: '2026-10-01T10:00:00.000Z', receivedAt: RECEIVED, platform: 'universal', type: 'incoming', direction: 'incoming',
      userId: 'ann', userName: 'Ann', conversationId: 'c1', channel: 'webchat', text: 'Large please',
      intent: { name: 'Order', inputs: [{ name: 'size', value: 'L' }, { name: 'score', value: '0.8' }] }, intentScore: 0.8,
      buttons: undefined, clickedButton: 'large', images: ['https://x/a.png'], aiGenerated: undefined, activityId: 'act-1',
    }]);
  });

  it('shows what the bot sent, naming the user it went to, with its buttons', () => {
    const entry = one(record('outgoing', {
      text: 'Thin or deep?', userId: 'ann',
      buttons: [{ id: 'thin', label: 'Thin', value: 'thin' }, { label: 'No id' }, 'not a button'],
      platformJson: { conversation: { id: 'c1' }, from: { name: 'Bot' }, recipient: { id: 'ann', name: 'Ann' } },
    }));
    expect(entry).toMatchObject({ direction: 'outgoing', type: 'outgoing', userId: 'ann', userName: 'Ann', conversationId: 'c1', text: 'Thin or deep?' });
    expect(entry.buttons).toEqual([{ id: 'thin', label: 'Thin', value: 'thin' }, { id: '', label: 'No id', value: '' }]);
    expect(one(record('outgoing', { text: 'x', userId: 'ann', buttons: [{ id: 'b', value: 'v' }] })).buttons).toEqual([{ id: 'b', label: '', value: 'v' }]);
  });

  it('reads a card-only reply\'s hero and thumbnail cards as a Messenger template\'s: each card\'s title, subtitle and text, one a line', () => {
    const HERO = 'application/vnd.microsoft.card.hero';
    const reply = (text: unknown, platformJson: Record<string, unknown>) => one(record('outgoing', { text, userId: 'ann', platformJson: { conversation: { id: 'c1' }, ...platformJson } })).text;
    const attachments = [
      { contentType: HERO, content: { title: 'Our pizzas', subtitle: 'Tap one to order it', buttons: [] } },
      { contentType: 'image/png', contentUrl: 'https://x/p.png', content: { title: 'not a card' } },
      { contentType: 'application/vnd.microsoft.card.thumbnail', content: { title: ' ', subtitle: 'Drinks', text: 'Cold ones' } },
      { contentType: HERO, content: 'not an object' },
      'not an attachment',
    ];
    // The middleware's text for a card-only reply is its first card's title.
    expect(reply('Our pizzas', { attachments })).toBe('Our pizzas\nTap one to order it\nDrinks\nCold ones');
    expect(reply('', { attachments })).toBe('Our pizzas\nTap one to order it\nDrinks\nCold ones');
    expect(reply(undefined, { attachments })).toBe('Our pizzas\nTap one to order it\nDrinks\nCold ones');
    // A reply with text of its own keeps it: the activity's, or a record's text that is not the card's.
    expect(reply('Menu:', { text: 'Menu:', attachments })).toBe('Menu:');
    expect(reply('Here you go', { attachments })).toBe('Here you go');
    expect(reply('Our pizzas', { text: 'Our pizzas', attachments })).toBe('Our pizzas');
    // No card with text: the record's text.
    expect(reply('Our pizzas', { attachments: attachments.slice(1, 2) })).toBe('Our pizzas');
    expect(reply('Our pizzas', { attachments: [{ contentType: HERO, content: { title: '', buttons: [] } }] })).toBe('Our pizzas');
    expect(reply('x', {})).toBe('x');
  });

  it('takes a generic (scripted) record as incoming', () => {
    expect(one(record('generic', { text: 'scripted', userId: 'u' }, null, null))).toMatchObject({ direction: 'incoming', platform: null, type: 'generic', userId: 'u', conversationId: 'u' });
  });

  it('names no user when a message carries no channel data', () => {
    expect(one(record('outgoing', { text: 'x', userId: 'u' }))).toMatchObject({ userId: 'u', conversationId: 'u', userName: undefined, channel: undefined, time: RECEIVED });
    expect(one(record('incoming', { text: 'x', userId: 'u' }))).toMatchObject({ userId: 'u', userName: undefined });
  });

  it('falls back to the user for the conversation, and leaves out an empty name, channel or activity id', () => {
    const entry = one(record('incoming', { text: 'hi', userId: 'u1', platformJson: { conversation: { id: '' }, channelId: '', id: '', from: { name: '' } } }));
    expect(entry.conversationId).toBe('u1');
    expect(entry).not.toMatchObject({ userName: expect.anything() });
    expect(entry.channel).toBeUndefined();
    expect(entry.activityId).toBeUndefined();
    expect(entry.userName).toBeUndefined();
  });

  it('gives no user when the record names none, and no fields from values of the wrong type', () => {
    const entry = one(record('incoming', { text: 5, userId: 7, intent: 'Order', buttons: 'b', images: {}, platformJson: { conversation: 'c', channelId: 3, from: 'ann', id: 4 } }));
    expect(entry).toMatchObject({ userId: '', conversationId: '' });
    for (const field of ['text', 'intent', 'buttons', 'images', 'channel', 'userName', 'activityId', 'intentScore', 'clickedButton']) expect(entry[field as keyof typeof entry], field).toBeUndefined();
  });

  it('reads an intent without inputs, and keeps only inputs that have a name, an empty value for one without', () => {
    expect(one(record('incoming', { text: 'x', userId: 'u', intent: { name: 'Greet' } })).intent).toEqual({ name: 'Greet', inputs: [] });
    expect(one(record('incoming', { text: 'x', userId: 'u', intent: { name: 'Greet', inputs: [{ name: 'a', value: 1 }, { value: 'v' }, 'x', { name: 'b', value: 'B' }] } })).intent)
      .toEqual({ name: 'Greet', inputs: [{ name: 'a', value: '' }, { name: 'b', value: 'B' }] });
    expect(one(record('incoming', { text: 'x', userId: 'u', intent: { inputs: [] } })).intent).toBeUndefined();
  });

  it('takes the last score input for the confidence, as a number or numeric text, and none for anything else', () => {
    const score = (...values: unknown[]) => one(record('incoming', { text: 'x', userId: 'u', intent: { name: 'I', inputs: values.map((value) => ({ name: 'score', value })) } })).intentScore;
    expect(score('0.2', '0.9')).toBe(0.9);
    expect(score('0.9', 'high')).toBeUndefined();
    expect(score(' ')).toBeUndefined();
    expect(score('')).toBeUndefined();
    expect(score('1e400')).toBeUndefined();
    expect(score(' 0.5 ')).toBe(0.5);
    expect(one(record('incoming', { text: 'x', userId: 'u', intent: { name: 'I', inputs: [{ name: 'score', value: '0.4' }, { name: 'size', value: 'L' }] } })).intentScore).toBe(0.4);
    expect(one(record('incoming', { text: 'x', userId: 'u', intent: { name: 'I', inputs: [{ name: 'topIntent', value: '0.4' }] } })).intentScore).toBeUndefined();
  });

  it('marks a reply AI-generated by the Schema.org Message entity with AIGeneratedContent, by type or @type', () => {
    const ai = (entities: unknown) => one(record('outgoing', { text: 'x', userId: 'u', platformJson: { entities } })).aiGenerated;
    expect(ai([{ type: 'https://schema.org/Message', additionalType: ['AIGeneratedContent'] }])).toBe(true);
    expect(ai([{ type: 'mention' }, { '@type': 'Message', additionalType: ['Other', 'AIGeneratedContent'] }])).toBe(true);
    expect(ai([{ type: 'https://schema.org/Message', additionalType: ['Other'] }])).toBeUndefined();
    expect(ai([{ type: 'Message', additionalType: ['AIGeneratedContent'] }])).toBeUndefined();
    expect(ai([{ type: 'https://schema.org/Message', additionalType: 'AIGeneratedContent' }])).toBeUndefined();
    expect(ai(['AIGeneratedContent'])).toBeUndefined();
    expect(ai(undefined)).toBeUndefined();
  });
});

describe('when an entry happened', () => {
  it('is the activity\'s timestamp, as ISO text or epoch milliseconds', () => {
    expect(timeOf('2026-10-01T10:00:00+02:00')).toBe('2026-10-01T08:00:00.000Z');
    expect(timeOf(Date.parse('2026-09-30T10:00:00.250Z'))).toBe('2026-09-30T10:00:00.250Z');
    expect(timeOf(Date.parse('2026-09-30T10:00:00.250Z') + 0.75)).toBe('2026-09-30T10:00:00.250Z');
  });

  it('is when it was received when the record gives no time, or one that cannot be', () => {
    for (const timestamp of [undefined, 'not a time', 'Thu Oct 01 2026 10:00:00 GMT+0000 (Coordinated Universal Time)   ', Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, true, {}, null]) expect(timeOf(timestamp), String(timestamp)).toBe(RECEIVED);
    // A text of up to 64 characters is read.
    expect(timeOf('Thu Oct 01 2026 10:00:00 GMT+0000 (Coordinated Universal Time)  ')).toBe('2026-10-01T10:00:00.000Z');
  });

  it('takes a time up to a day after it was received (a clock off), and refuses one later or before 2000', () => {
    const received = Date.parse(RECEIVED);
    expect(timeOf(received + 86_400_000)).toBe(new Date(received + 86_400_000).toISOString());
    expect(timeOf(received + 86_400_001)).toBe(RECEIVED);
    expect(timeOf(Date.UTC(2000, 0, 1))).toBe('2000-01-01T00:00:00.000Z');
    expect(timeOf(Date.UTC(2000, 0, 1) - 1)).toBe(RECEIVED);
    expect(timeOf('1999-12-31T23:59:59Z')).toBe(RECEIVED);
  });
});

describe('an event', () => {
  it('shows its name, type, amount, reference, currency and extra information, in its conversation', () => {
    expect(one(record('event', {
      type: 'revenueEvent', name: 'purchase', userId: 'ann', conversationId: 'c1', amount: 12.5, referenceNumber: 'R-1',
      metadata: { currency: 'eur' }, extraInfo: { note: 'x' },
    }))).toEqual({
      seq: 7, time: RECEIVED, receivedAt: RECEIVED, platform: 'universal', type: 'event', direction: 'event', userId: 'ann', conversationId: 'c1',
      event: { name: 'purchase', type: 'revenueEvent', amount: 12.5, referenceNumber: 'R-1', currency: 'EUR', extraInfo: { note: 'x' } },
    });
  });

  it('takes the currency from metadata.currency, then metadata.currencyCode, then extraInfo.currency, when it is three letters', () => {
    const currency = (metadata: unknown, extraInfo?: unknown) => one(record('event', { type: 'revenueEvent', name: 'p', userId: 'u', metadata, extraInfo })).event?.currency;
    expect(currency({ currency: 'usd', currencyCode: 'EUR' })).toBe('USD');
    expect(currency({ currency: 'euro', currencyCode: 'gbp' })).toBe('GBP');
    expect(currency({ currency: 1 }, { currency: 'chf' })).toBe('CHF');
    expect(currency({ currency: 'E1R' })).toBeUndefined();
    expect(currency({ currency: ' EUR' })).toBeUndefined();
    expect(currency({ currency: 'EURO' })).toBeUndefined();
    expect(currency(undefined)).toBeUndefined();
  });

  it('keeps only a finite number for the amount, and text for the reference', () => {
    const event = (body: Record<string, unknown>) => one(record('event', { type: 'revenueEvent', name: 'p', userId: 'u', ...body })).event;
    expect(event({ amount: '12' })).not.toHaveProperty('amount');
    expect(event({ amount: Number.POSITIVE_INFINITY })).not.toHaveProperty('amount');
    expect(event({ amount: 0 })).toMatchObject({ amount: 0 });
    expect(event({ referenceNumber: 5 })).not.toHaveProperty('referenceNumber');
    expect(event({ extraInfo: 'text' })).not.toHaveProperty('extraInfo');
    expect(event({})).toStrictEqual({ name: 'p', type: 'revenueEvent' });
    expect(event({ amount: 5, metadata: { currency: ['eur'] } })).toStrictEqual({ name: 'p', type: 'revenueEvent', amount: 5 });
  });

  it('gives an event without a name or type empty ones, and one without a conversation its user\'s', () => {
    expect(one(record('event', { userId: 'u' }))).toMatchObject({ conversationId: 'u', event: { name: '', type: '' } });
    expect(one(record('event', { name: 'x' }))).toMatchObject({ userId: '', conversationId: '' });
    expect(one(record('event', { userId: 'u', conversationId: '' })).conversationId).toBe('u');
  });

  it('puts a messenger event in its user\'s conversation, whatever conversation it names', () => {
    expect(one(record('event', { type: 'customEvent', name: 'x', userId: 'psid', conversationId: 'c9' }, 'messenger', 'facebook')).conversationId).toBe('psid');
  });

  it('happens when its extraInfo or else its metadata says, else when it was received', () => {
    const at = (body: Record<string, unknown>) => one(record('event', { type: 'customEvent', name: 'x', userId: 'u', ...body })).time;
    expect(at({ extraInfo: { timestamp: '2026-09-01T00:00:00Z' }, metadata: { timestamp: '2026-09-02T00:00:00Z' } })).toBe('2026-09-01T00:00:00.000Z');
    expect(at({ extraInfo: { timestamp: 'soon' }, metadata: { timestamp: '2026-09-02T00:00:00Z' } })).toBe('2026-09-02T00:00:00.000Z');
    expect(at({ metadata: { timestamp: Date.parse('2026-09-03T00:00:00Z') } })).toBe('2026-09-03T00:00:00.000Z');
    expect(at({})).toBe(RECEIVED);
  });
});

describe('a messenger webhook', () => {
  const webhook = (...messaging: unknown[]) => record('incoming', { object: 'page', entry: [{ id: 'page', messaging }] }, 'messenger', 'facebook');

  it('gives one entry per messaging item, each in its sender\'s conversation at its own time', () => {
    const entries = transcriptEntries(record('incoming', {
      object: 'page',
      entry: [
        { id: 'p', messaging: [{ sender: { id: 'a' }, timestamp: Date.parse('2026-10-01T09:00:00Z'), message: { text: 'one' } }, 'junk', { sender: { id: 'b' }, message: { text: 'two' } }] },
        'junk',
        { id: 'p', messaging: [{ sender: { id: 'c' }, postback: { payload: 'START', title: 'Get started' } }] },
      ],
    }, 'messenger', 'facebook'));
    expect(entries.map((e) => [e.userId, e.conversationId, e.text, e.time, e.direction, e.clickedButton])).toEqual([
      ['a', 'a', 'one', '2026-10-01T09:00:00.000Z', 'incoming', undefined],
      ['b', 'b', 'two', RECEIVED, 'incoming', undefined],
      ['c', 'c', 'Get started', RECEIVED, 'incoming', 'START'],
    ]);
  });

  it('takes a quick reply\'s payload for the button clicked, an intent with its score, and image attachments', () => {
    const [entry] = transcriptEntries(webhook({
      sender: { id: 'a' },
      message: { text: 'Red', quick_reply: { payload: 'RED' }, attachments: [{ type: 'image', payload: { url: 'https://x/i.png' } }, { type: 'file', payload: { url: 'https://x/f.pdf' } }] },
      intent: { name: 'Pick', inputs: [{ name: 'score', value: '0.6' }] },
    }));
    expect(entry).toMatchObject({ text: 'Red', clickedButton: 'RED', intent: { name: 'Pick' }, intentScore: 0.6, images: ['https://x/i.png'] });
  });

  it('reads an item that is neither a message nor a postback (a read receipt) as an entry without text', () => {
    expect(transcriptEntries(webhook({ sender: { id: 'a' }, read: { watermark: 1 } }))).toMatchObject([{ userId: 'a', text: undefined, clickedButton: undefined, images: undefined }]);
    expect(transcriptEntries(webhook({ sender: { id: 'a' }, postback: { payload: 'P' } }))).toMatchObject([{ userId: 'a', text: undefined, clickedButton: 'P' }]);
  });

  it('skips attachments without a payload, and images without a URL', () => {
    const [entry] = transcriptEntries(webhook({ sender: { id: 'a' }, message: { attachments: [{ type: 'image' }, { type: 'image', payload: {} }, { type: 'image', payload: { url: 'https://x/ok.png' } }] } }));
    expect(entry.images).toEqual(['https://x/ok.png']);
    const sent = one(record('outgoing', { json: { recipient: { id: 'p' }, message: { attachment: { type: 'template' }, quick_replies: [{ payload: 'NO_TITLE' }] } } }, 'messenger', 'facebook'));
    expect(sent).toMatchObject({ text: undefined, images: undefined, buttons: [{ id: 'NO_TITLE', label: '', value: 'NO_TITLE' }] });
  });

  it('gives no entry for a webhook without messaging items, and an empty user for an item without a sender', () => {
    expect(transcriptEntries(record('incoming', { object: 'page', entry: [{ id: 'p' }] }, 'messenger', 'facebook'))).toEqual([]);
    expect(transcriptEntries(record('incoming', { object: 'page' }, 'messenger', 'facebook'))).toEqual([]);
    expect(transcriptEntries(webhook({ message: { text: 'who?' } }))[0]).toMatchObject({ userId: '', conversationId: '', text: 'who?' });
  });

  it('shows what the bot sent to the recipient: text, quick replies, template buttons, cards with their images', () => {
    const entry = one(record('outgoing', {
      json: {
        recipient: { id: 'psid' },
        message: {
          quick_replies: [{ title: 'Yes', payload: 'YES' }, 'junk'],
          attachment: {
            type: 'template',
            payload: {
              template_type: 'generic',
              buttons: [{ title: 'Site', url: 'https://site' }],
              elements: [
                { title: 'Margherita', subtitle: 'Tomato', image_url: 'https://x/m.png', buttons: [{ title: 'Buy', payload: 'BUY_M' }, { title: 'Nothing' }] },
                { title: '', subtitle: 'Only a subtitle' },
                'junk',
              ],
            },
          },
        },
      },
      intent: { name: 'Menu', inputs: [] },
    }, 'messenger', 'facebook'));
    expect(entry).toMatchObject({ direction: 'outgoing', userId: 'psid', conversationId: 'psid', text: 'Margherita\nTomato\nOnly a subtitle', intent: { name: 'Menu', inputs: [] } });
    expect(entry.buttons).toEqual([
      { id: 'YES', label: 'Yes', value: 'YES' },
      { id: 'https://site', label: 'Site', value: 'https://site' },
      { id: 'BUY_M', label: 'Buy', value: 'BUY_M' },
      { id: '', label: 'Nothing', value: '' },
    ]);
    expect(entry.images).toEqual(['https://x/m.png']);
  });

  it('shows a message\'s own text before a template\'s, and a button template\'s text', () => {
    const sent = (message: unknown) => one(record('outgoing', { json: { recipient: { id: 'p' }, message } }, 'messenger', 'facebook'));
    expect(sent({ text: 'Plain', attachment: { payload: { text: 'Template' } } }).text).toBe('Plain');
    expect(sent({ text: '', attachments: [{ payload: { text: 'Choose', buttons: [{ title: 'A', payload: 'A' }] } }] })).toMatchObject({ text: 'Choose', buttons: [{ id: 'A', label: 'A', value: 'A' }] });
    expect(sent({ attachment: { type: 'image', payload: { url: 'https://x/p.png' } } })).toMatchObject({ text: undefined, images: ['https://x/p.png'], buttons: undefined });
    expect(sent({ text: '' }).text).toBe('');
    expect(sent(undefined)).toMatchObject({ text: undefined, buttons: undefined, images: undefined });
    expect(one(record('outgoing', {}, 'messenger', 'facebook'))).toMatchObject({ userId: '', conversationId: '', text: undefined });
    expect(one(record('outgoing', { json: {} }, 'messenger', 'facebook'))).toMatchObject({ userId: '', text: undefined });
  });
});

describe('a record it cannot read', () => {
  it('gives no entry for a body that is not an object', () => {
    for (const body of [null, 'text', [1], 3]) expect(transcriptEntries(record('incoming', body))).toEqual([]);
  });
});
