import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSummary, renderTranscript } from '../../src/cli/render.js';
import { summarizeEntries } from '../../src/cli/summary.js';
import type { TrackingEndpoint, TrackingSummary, TranscriptEntry, TranscriptResponse } from '../../src/index.js';
import { Q, request, start, track } from '../helpers.js';
import { runCli } from './helpers.js';

let endpoint: TrackingEndpoint;
beforeAll(async () => {
  endpoint = await start();
  const conv = { platformJson: { conversation: { id: 'c1' } } };
  await track(endpoint, Q.dmIn, { text: 'I want a pizza', userId: 'ann', intent: { name: 'order', inputs: [{ name: 'size', value: 'large' }] }, platformJson: { ...conv.platformJson, from: { id: 'ann', name: 'Ann Smith' } } });
  await track(endpoint, Q.dmOut, { text: 'Which crust?', userId: 'ann', buttons: [{ id: 'thin', label: 'Thin', value: 'thin' }, { id: 'deep', label: 'Deep', value: 'deep' }], images: [{ url: 'https://img/crust.png' }], ...conv });
  await track(endpoint, Q.dmIn, { text: 'Thin', userId: 'ann', postback: { buttonClick: { buttonId: 'thin' } }, ...conv });
  await track(endpoint, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'ann', amount: 12.5, referenceNumber: 'R-7' });
  await track(endpoint, Q.universalIn, { text: 'survey: 5 stars', userId: 'bob' });
});
afterAll(() => endpoint.close());

describe('transcript', () => {
  it('prints each user\'s transcript with directions, intents, buttons, clicks, images and events, then the summary', async () => {
    const result = await runCli(['transcript', '--url', endpoint.url]);
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain('Transcript of Ann Smith (user ann, twitter)');
    expect(out).toMatch(/user {2}> I want a pizza\n {20}intent: order \(size=large\)/);
    expect(out).toMatch(/bot {3}< Which crust\?\n {20}buttons: Thin \| Deep\n {20}images: https:\/\/img\/crust\.png/);
    expect(out).toMatch(/user {2}> Thin\n {20}clicked: Thin/);
    expect(out).toContain('event * revenueEvent "purchase" amount 12.5 ref R-7');
    expect(out).toContain('Transcript of user bob (universal)');
    expect(out).toContain('Summary: 5 records, 4 messages, 1 event, 2 users, 3 conversations');
    expect(out).toContain('by intent:    order 1');
    expect(out).toContain('revenue:      unknown 12.5 from 1 revenue event');
    expect(out.indexOf('I want a pizza')).toBeLessThan(out.indexOf('Which crust?'));
  });

  it('prints one user with --user, and a summary of that user only', async () => {
    const result = await runCli(['transcript', '--url', endpoint.url, '--user', 'bob']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('survey: 5 stars');
    expect(result.stdout).not.toContain('pizza');
    expect(result.stdout).toContain('Summary of user bob: 1 record, 1 message, 0 events, 1 user, 1 conversation');
    expect(result.stdout).toContain('by platform:  universal 1\n');
    expect(result.stdout).not.toContain('twitter');
    const ann = await runCli(['transcript', '--url', endpoint.url, '--user', 'ann']);
    expect(ann.stdout).toContain('Summary of Ann Smith (user ann): 4 records, 3 messages, 1 event, 1 user, 2 conversations');
    expect(ann.stdout).toContain('by type:      incoming 2, outgoing 1, event 1');
    expect(ann.stdout).toContain('revenue:      unknown 12.5 from 1 revenue event');
    expect(ann.stdout).not.toContain('survey');
  });

  it('says how many users it left out and how to see them all, and --limit 0 shows all', async () => {
    const limited = await runCli(['transcript', '--url', endpoint.url, '--limit', '1']);
    expect(limited.code).toBe(0);
    expect(limited.stdout).toContain('1 more user not shown (showing the 1 most recently active of 2): --limit 0 shows all, --user ID shows one.');
    expect(limited.stdout).toContain('Transcript of user bob (universal)');
    expect(limited.stdout).not.toContain('Transcript of Ann Smith');
    // The summary is still of everything.
    expect(limited.stdout).toContain('Summary: 5 records');
    const all = await runCli(['transcript', '--url', endpoint.url, '--limit', '0']);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('Transcript of Ann Smith (user ann, twitter)');
    expect(all.stdout).toContain('Transcript of user bob (universal)');
    expect(all.stdout).not.toContain('not shown');
    const json = await runCli(['transcript', '--url', endpoint.url, '--limit', '1', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ usersNotShown: 1, transcripts: [{ userId: 'bob' }] });
  }, 60_000); // three CLI processes, each starting Node and tsx: over 20 s on a loaded machine

  it('exits 2 for --limit with --user, or a --limit that is not a whole number', async () => {
    const both = await runCli(['transcript', '--url', endpoint.url, '--user', 'bob', '--limit', '3']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--limit is the number of users to show; it does not go with --user.');
    const bad = await runCli(['transcript', '--url', endpoint.url, '--limit', 'all']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--limit must be a whole number between 0 and');
  });

  it('exits 2 for --key (a write key), saying that reading needs a reader token, without echoing the key', async () => {
    for (const args of [['--key', 'pizza-write-key-9'], ['--key=pizza-write-key-9', '--token', 'reader-1']]) {
      const result = await runCli(['transcript', '--url', endpoint.url, ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--key is a write key, and write keys cannot read: give a reader token with --token TOKEN (or env TRACKING_READER_TOKEN)');
      expect(result.stderr).not.toContain('Unknown option');
      expect(result.stderr).not.toContain('pizza-write-key-9');
      expect(result.stdout).toBe('');
    }
  });

  it('exits 1 and says so for a user with no records', async () => {
    const result = await runCli(['transcript', '--url', endpoint.url, '--user', 'nobody']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('answered 404');
  });

  it('exits 1 and says how to start an endpoint when nothing listens', async () => {
    const closed = await start();
    const url = closed.url;
    await closed.close();
    const result = await runCli(['transcript', '--url', url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cannot reach the tracking endpoint at ${url}`);
    expect(result.stderr).toContain('serve');
  });
});

describe('transcript of a group conversation', () => {
  it('names its users in the heading and says who said what, with a summary of that conversation only', async () => {
    const group = await start();
    try {
      const conv = (from: Record<string, string>) => ({ platformJson: { conversation: { id: 'g1' }, from } });
      await track(group, Q.universalIn, { text: 'hi all', userId: 'cy', ...conv({ id: 'cy', name: 'Cy Young' }) });
      await track(group, Q.universalIn, { text: 'hello', userId: 'dee', ...conv({ id: 'dee' }) });
      await track(group, Q.universalOut, { text: 'Welcome, both.', userId: 'cy', ...conv({ id: 'bot', name: 'Bot' }) });
      await track(group, Q.universalIn, { text: 'elsewhere', userId: 'eve' });
      const result = await runCli(['transcript', '--url', group.url, '--conversation', 'g1']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Transcript of conversation g1 (users Cy Young (cy), dee)');
      expect(result.stdout).toMatch(/user {2}> Cy Young: hi all\n/);
      expect(result.stdout).toMatch(/user {2}> dee: hello\n/);
      expect(result.stdout).toMatch(/bot {3}< Welcome, both\.\n/);
      expect(result.stdout).toContain('Summary of conversation g1: 3 records, 3 messages, 0 events, 2 users, 1 conversation');
      expect(result.stdout).not.toContain('elsewhere');
    } finally {
      await group.close();
    }
  });
});

describe('revenue in several currencies', () => {
  it('is totalled per currency, never added across currencies, in the summary of everything and of one user', async () => {
    const shop = await start();
    try {
      await track(shop, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'eva', amount: 20, metadata: { currency: 'EUR' } });
      await track(shop, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'eva', amount: 15.5, metadata: { currency: 'USD' } });
      await track(shop, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'eva', amount: 7 });
      const all = await runCli(['transcript', '--url', shop.url]);
      expect(all.code).toBe(0);
      expect(all.stdout).toContain('revenue:      EUR 20, USD 15.5, unknown 7 from 3 revenue events');
      expect(all.stdout).not.toContain('42.5');
      const eva = await runCli(['transcript', '--url', shop.url, '--user', 'eva', '--json']);
      expect(JSON.parse(eva.stdout).summary.revenue).toEqual({ total: null, count: 3, byCurrency: { EUR: 20, USD: 15.5, unknown: 7 } });
    } finally {
      await shop.close();
    }
  });

  it('renders one currency with its code, and no revenue as a dash', () => {
    const summary = (revenue: TrackingSummary['revenue']): TrackingSummary => ({
      records: 0, messages: 0, events: 0, users: 0, conversations: 0, byType: {}, byPlatform: {}, byIntent: {}, byEventType: {}, byEventName: {}, byChannel: {},
      revenue, firstAt: null, lastAt: null,
    });
    expect(renderSummary(summary({ total: 31.5, count: 3, byCurrency: { EUR: 31.5 } }))).toContain('revenue:      EUR 31.5 from 3 revenue events');
    expect(renderSummary(summary({ total: 0, count: 0, byCurrency: {} }))).toContain('revenue:      -');
  });
});

describe('a transcript longer than the endpoint returns at once', () => {
  it('says in its heading how much of it is shown', async () => {
    const long = await start();
    try {
      // One messenger webhook record of 5001 messages: 5001 entries, more than the 5000 the endpoint returns by default.
      const messaging = Array.from({ length: 5001 }, (_, i) => ({ sender: { id: 'max' }, recipient: { id: 'p' }, timestamp: 1_735_000_000_000 + i, message: { mid: `m${i}`, seq: i, text: `n${i}` } }));
      expect((await track(long, Q.fbIn, { object: 'page', entry: [{ id: 'p', time: 1, messaging }] })).status).toBe(200);
      const all = await runCli(['transcript', '--url', long.url]);
      expect(all.code).toBe(0);
      expect(all.stdout).toContain('Transcript of user max (facebook): the latest 5000 of 5001 entries');
      const one = await runCli(['transcript', '--url', long.url, '--user', 'max']);
      expect(one.stdout).toContain('Transcript of user max (facebook)\n');
      expect(one.stdout).toContain('Summary of user max: 1 record, 5001 messages');
    } finally {
      await long.close();
    }
  });
});

describe('summarizeEntries', () => {
  it('counts one user\'s entries as /api/summary counts an endpoint that holds only that user', async () => {
    const one = await start();
    try {
      const at = (time: string) => ({ platformJson: { conversation: { id: 'k1' }, timestamp: time, from: { id: 'kim', name: 'Kim' } } });
      await track(one, Q.universalIn, { text: 'a pizza', userId: 'kim', intent: { name: 'order', inputs: [] }, ...at('2025-01-02T10:00:00Z') });
      await track(one, Q.universalOut, { text: 'which one?', userId: 'kim', intent: { name: 'order', inputs: [] }, ...at('2025-01-02T10:00:01Z') });
      await track(one, Q.smsIn, { text: 'thin', userId: 'kim', intent: { name: 'NotHandled', inputs: [] } });
      await track(one, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'kim', amount: 0.1 });
      await track(one, Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'kim', amount: 0.2 });
      await track(one, Q.dmEvent, { name: 'opened', type: 'customEvent', userId: 'kim', conversationId: 'k2' });
      await track(one, Q.fbIn, { object: 'page', entry: [{ id: 'p', time: 1, messaging: [
        { sender: { id: 'kim' }, recipient: { id: 'p' }, timestamp: Date.parse('2025-01-03T00:00:00Z'), message: { mid: 'm1', seq: 1, text: 'one' } },
        { sender: { id: 'kim' }, recipient: { id: 'p' }, timestamp: Date.parse('2025-01-03T00:00:01Z'), message: { mid: 'm2', seq: 2, text: 'two' } },
      ] }] });
      const transcript = (await request(one, '/api/transcript?user=kim')).body as TranscriptResponse;
      const endpointSummary = (await request(one, '/api/summary')).body as TrackingSummary;
      expect(endpointSummary.records).toBe(7);
      expect(endpointSummary.messages).toBe(5);
      expect(summarizeEntries(transcript.entries)).toEqual(endpointSummary);
    } finally {
      await one.close();
    }
  });

  it('is all zeros and no times for no entries', () => {
    expect(summarizeEntries([])).toMatchObject({ records: 0, messages: 0, users: 0, byType: {}, revenue: { total: 0, count: 0 }, firstAt: null, lastAt: null });
  });
});

describe('renderTranscript and renderSummary', () => {
  const entry = (seq: number, time: string, extra: Partial<TranscriptEntry>): TranscriptEntry => ({
    seq, time, receivedAt: time, platform: 'sms', type: 'incoming', direction: 'incoming', userId: 'u1', conversationId: 'u1', ...extra,
  });

  it('puts a date line before the first entry of each day and indents multi-line text', () => {
    const text = renderTranscript([
      entry(1, '2025-01-01T23:59:00.000Z', { text: 'late' }),
      entry(2, '2025-01-02T00:01:00.000Z', { direction: 'outgoing', type: 'outgoing', text: 'line 1\nline 2' }),
      entry(3, '2025-01-02T00:02:00.000Z', {}),
    ]);
    expect(text.split('\n')).toEqual([
      'Transcript of user u1 (sms)',
      '2025-01-01',
      '  23:59:00  user  > late',
      '2025-01-02',
      '  00:01:00  bot   < line 1',
      '                    line 2',
      '  00:02:00  user  > (no text)',
    ]);
  });

  it('names the user in the heading when the entries carry the name, and each speaker when there are several users', () => {
    const named = renderTranscript([entry(1, '2025-01-01T10:00:00.000Z', { text: 'hi', userName: 'Ann Smith' })]);
    expect(named.split('\n')[0]).toBe('Transcript of Ann Smith (user u1, sms)');
    const group = renderTranscript([
      entry(1, '2025-01-01T10:00:00.000Z', { text: 'hi', userName: 'Ann Smith' }),
      entry(2, '2025-01-01T10:00:01.000Z', { text: 'hello', userId: 'u2' }),
      entry(3, '2025-01-01T10:00:02.000Z', { text: 'again', userId: 'u2', userName: 'Bo' }),
      entry(4, '2025-01-01T10:00:03.000Z', { text: 'both of you', direction: 'outgoing', type: 'outgoing' }),
    ]).split('\n');
    expect(group.slice(2)).toEqual([
      '  10:00:00  user  > Ann Smith: hi',
      '  10:00:01  user  > Bo: hello',
      '  10:00:02  user  > Bo: again',
      '  10:00:03  bot   < both of you',
    ]);
  });

  it('shows what the page shows: button labels (not their ids), the clicked button\'s label as offered, the AI-generated tag, revenue in its currency, names known from elsewhere', () => {
    const suggested = { id: '{"text":"menu"}', label: 'menu', value: '{"text":"menu"}' };
    const text = renderTranscript([
      entry(1, '2025-01-01T10:00:00.000Z', { direction: 'outgoing', type: 'outgoing', text: 'What now?', buttons: [suggested, { id: 'h', label: '', value: 'help' }, { id: 'x', label: '', value: '' }] }),
      entry(2, '2025-01-01T10:00:01.000Z', { text: 'menu', clickedButton: '{"text":"menu"}' }),
      entry(3, '2025-01-01T10:00:02.000Z', { text: 'huh', clickedButton: 'not offered' }),
      entry(4, '2025-01-01T10:00:03.000Z', { direction: 'outgoing', type: 'outgoing', text: 'Here it is', aiGenerated: true }),
      entry(5, '2025-01-01T10:00:04.000Z', { direction: 'event', type: 'event', event: { type: 'revenueEvent', name: 'purchase', amount: 4.2, currency: 'EUR', referenceNumber: 'R-1' } }),
      entry(6, '2025-01-01T10:00:05.000Z', { direction: 'event', type: 'event', event: { type: 'revenueEvent', name: 'tip', amount: 500, currency: 'JPY' } }),
      entry(7, '2025-01-01T10:00:06.000Z', { direction: 'event', type: 'event', event: { type: 'revenueEvent', name: 'odd', amount: 1.5, currency: 'XQZ1' } }),
      entry(8, '2025-01-01T10:00:07.000Z', { direction: 'event', type: 'event', event: { type: 'revenueEvent', name: 'bare', amount: 3 } }),
    ], { names: new Map([['u1', 'Linus']]) }).split('\n');
    expect(text).toEqual([
      'Transcript of Linus (user u1, sms)',
      '2025-01-01',
      '  10:00:00  bot   < What now?',
      '                    buttons: menu | help | x',
      '  10:00:01  user  > menu',
      '                    clicked: menu',
      '  10:00:02  user  > huh',
      '                    clicked: not offered',
      '  10:00:03  bot   < [AI generated] Here it is',
      '  10:00:04  event * revenueEvent "purchase" 4.20 EUR ref R-1',
      '  10:00:05  event * revenueEvent "tip" 500 JPY',
      '  10:00:06  event * revenueEvent "odd" 1.5 XQZ1',
      '  10:00:07  event * revenueEvent "bare" amount 3',
    ]);
    // A name the entries carry wins over one known from elsewhere.
    expect(renderTranscript([entry(1, '2025-01-01T10:00:00.000Z', { text: 'hi', userName: 'Ann' })], { names: new Map([['u1', 'Other']]) }).split('\n')[0]).toBe('Transcript of Ann (user u1, sms)');
  });

  it('shows a rating as the page does: its thumb, then the comment (feedbackText, else comment)', () => {
    const rating = (seq: number, extraInfo: Record<string, unknown>) => entry(seq, `2025-01-01T10:00:0${seq}.000Z`, { direction: 'event', type: 'event', event: { type: 'customEvent', name: 'feedback', extraInfo } });
    const text = renderTranscript([
      rating(1, { reaction: 'like', feedbackText: 'Clear, thanks' }),
      rating(2, { reaction: 'dislike', comment: 'It did not answer "my" question', feedbackText: '' }),
      rating(3, { reaction: 'dislike', feedbackText: 'first', comment: 'second' }),
      rating(4, { reaction: 'love', comment: '' }),
      rating(5, { reaction: 'like', feedbackText: 42 }),
    ]).split('\n').slice(2);
    expect(text).toEqual([
      '  10:00:01  event * customEvent "feedback" [thumbs up] "Clear, thanks"',
      '  10:00:02  event * customEvent "feedback" [thumbs down]',
      '  10:00:03  event * customEvent "feedback" [thumbs down] "first"',
      '  10:00:04  event * customEvent "feedback"',
      '  10:00:05  event * customEvent "feedback" [thumbs up]',
    ]);
  });

  it('uses a given title', () => {
    expect(renderTranscript([], { title: 'Demo conversation' })).toBe('Demo conversation');
  });

  it('renders empty counts as a dash', () => {
    const summary: TrackingSummary = {
      records: 0, messages: 0, events: 0, users: 0, conversations: 0, byType: {}, byPlatform: {}, byIntent: {}, byEventType: {}, byEventName: {}, byChannel: {},
      revenue: { total: 0, count: 0, byCurrency: {} }, firstAt: null, lastAt: null,
    };
    expect(renderSummary(summary)).toContain('by intent:    -');
    expect(renderSummary(summary, { title: 'Summary of user u1' }).split('\n')[0]).toBe('Summary of user u1: 0 records, 0 messages, 0 events, 0 users, 0 conversations');
  });
});
