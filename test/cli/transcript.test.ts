import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSummary, renderTranscript } from '../../src/cli/render.js';
import type { TrackingEndpoint, TrackingSummary, TranscriptEntry } from '../../src/endpoint/index.js';
import { Q, start, track } from '../endpoint/helpers.js';
import { runCli } from './helpers.js';

let endpoint: TrackingEndpoint;
beforeAll(async () => {
  endpoint = await start();
  const conv = { platformJson: { conversation: { id: 'c1' } } };
  await track(endpoint, Q.dmIn, { text: 'I want a pizza', userId: 'ann', intent: { name: 'order', inputs: [{ name: 'size', value: 'large' }] }, ...conv });
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
    expect(out).toContain('Transcript of user ann (twitter)');
    expect(out).toMatch(/user {2}> I want a pizza\n {20}intent: order \(size=large\)/);
    expect(out).toMatch(/bot {3}< Which crust\?\n {20}buttons: \[thin\] Thin \| \[deep\] Deep\n {20}images: https:\/\/img\/crust\.png/);
    expect(out).toMatch(/user {2}> Thin\n {20}clicked: thin/);
    expect(out).toContain('event * revenueEvent "purchase" amount 12.5 ref R-7');
    expect(out).toContain('Transcript of user bob (universal)');
    expect(out).toContain('Summary: 5 records, 4 messages, 1 event, 2 users, 3 conversations');
    expect(out).toContain('by intent:    order 1');
    expect(out).toContain('revenue:      12.5 from 1 revenue event');
    expect(out.indexOf('I want a pizza')).toBeLessThan(out.indexOf('Which crust?'));
  });

  it('prints one user with --user', async () => {
    const result = await runCli(['transcript', '--url', endpoint.url, '--user', 'bob']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('survey: 5 stars');
    expect(result.stdout).not.toContain('pizza');
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

  it('uses a given title', () => {
    expect(renderTranscript([], { title: 'Demo conversation' })).toBe('Demo conversation');
  });

  it('renders empty counts as a dash', () => {
    const summary: TrackingSummary = {
      records: 0, messages: 0, events: 0, users: 0, conversations: 0, byType: {}, byPlatform: {}, byIntent: {}, byEventType: {},
      revenue: { total: 0, count: 0 }, firstAt: null, lastAt: null,
    };
    expect(renderSummary(summary)).toContain('by intent:    -');
  });
});
