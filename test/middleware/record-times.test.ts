/**
 * Every record says when it happened (issue 28, part 0): an outgoing record carries the time the
 * reply was sent (its own timestamp, else the send time) in `platformJson.timestamp`; an event the
 * time it was tracked (`trackEvent`'s call) or the time of the activity it came from, in
 * `extraInfo.timestamp` (`metadata.timestamp` for a revenue event), unless it has one there. Read
 * back the way the endpoint reads records, a record delivered late still shows when it happened.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity } from 'botbuilder';
import { transcriptEntries } from 'botbuilder-conversation-analytics-endpoint';
import type { StoredRecord } from 'botbuilder-conversation-analytics-endpoint';
import { trackEvent } from '../../src/middleware/index.js';
import { RecordLogger } from '../../src/middleware/record-logger.js';
import { adapterWith, send, startHarness, userMessage, type Harness, type Received } from './harness.js';
import { KIND } from './transcript-view.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (iso: unknown) => Date.parse(iso as string);

/** When the endpoint says a record happened, had it arrived `lateMs` after now. */
function timeShown(record: Received, lateMs = 20_000): string {
  const receivedAt = new Date(Date.now() + lateMs).toISOString();
  const stored = { seq: 1, receivedAt, platform: record.platform, platformKind: KIND[record.platform], type: record.type, body: record.body } as unknown as StoredRecord;
  return transcriptEntries(stored)[0].time;
}

describe('outgoing records', () => {
  it("a reply without a timestamp is dated with its send time, which the endpoint reads, however late it arrives", async () => {
    const sent: [number, number][] = [];
    const adapter = adapterWith(h, async (ctx) => {
      const before = Date.now();
      await ctx.sendActivity('first');
      sent.push([before, Date.now()]);
      await sleep(30);
      const later = Date.now();
      await ctx.sendActivity('second');
      sent.push([later, Date.now()]);
    });
    await send(adapter, userMessage({ text: 'hi' }));
    const outgoing = (await h.records()).filter((r) => r.type === 'outgoing');
    expect(outgoing.map((r) => r.body.text)).toEqual(['first', 'second']);
    outgoing.forEach((record, i) => {
      const at = ms(record.body.platformJson.timestamp);
      expect(at).toBeGreaterThanOrEqual(sent[i][0]);
      expect(at).toBeLessThanOrEqual(sent[i][1]);
      expect(timeShown(record)).toBe(record.body.platformJson.timestamp);
    });
    expect(ms(outgoing[1].body.platformJson.timestamp) - ms(outgoing[0].body.platformJson.timestamp)).toBeGreaterThanOrEqual(25);
  });

  it('a reply with a timestamp of its own keeps it', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity({ type: 'message', text: 'dated', timestamp: new Date('2026-05-01T10:00:05.000Z') })));
    await send(adapter, userMessage({ text: 'hi' }));
    const [, outgoing] = await h.records();
    expect(outgoing.body.platformJson.timestamp).toBe('2026-05-01T10:00:05.000Z');
    expect(timeShown(outgoing)).toBe('2026-05-01T10:00:05.000Z');
  });

  it('a messenger reply has no place for its time: nothing is added to its send request', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity('hi there')));
    await send(adapter, userMessage({ channelId: 'facebook', text: 'hi' }));
    const [, outgoing] = await h.records();
    expect(outgoing.platform).toBe('facebook');
    expect(JSON.stringify(outgoing.body)).not.toContain('timestamp');
  });
});

describe('events', () => {
  it('trackEvent: dated with the time of the call (not of delivery), custom and page-launch events in extraInfo, revenue events in metadata, share events nowhere', async () => {
    let called = [0, 0];
    const adapter = adapterWith(h, async (ctx) => {
      const before = Date.now();
      trackEvent(ctx, { type: 'customEvent', name: 'opened', extraInfo: { page: 'menu' } });
      trackEvent(ctx, { type: 'pageLaunchEvent', name: 'launched' });
      trackEvent(ctx, { type: 'revenueEvent', name: 'purchase', amount: 9.5 });
      trackEvent(ctx, { type: 'shareEvent', name: 'shared', sharedMessage: { text: 'look' } });
      called = [before, Date.now()];
      await sleep(30);
      await ctx.sendActivity('thanks');
    });
    await send(adapter, userMessage({ text: 'hi' }));
    const events = (await h.records()).filter((r) => r.type === 'event');
    const times = [events[0].body.extraInfo.timestamp, events[1].body.extraInfo.timestamp, events[2].body.metadata.timestamp];
    for (const time of times) {
      expect(ms(time)).toBeGreaterThanOrEqual(called[0]);
      expect(ms(time)).toBeLessThanOrEqual(called[1]);
    }
    expect(events[0].body.extraInfo).toEqual({ page: 'menu', timestamp: times[0] });
    expect(events[1].body.extraInfo).toEqual({ timestamp: times[1] });
    expect(events[2].body.metadata).toEqual({ timestamp: times[2] });
    expect(events[3].body).toEqual({ type: 'shareEvent', name: 'shared', sharedMessage: { text: 'look' }, userId: 'user-1', conversationId: 'conv-1' });
    expect(events.slice(0, 3).map((e) => timeShown(e))).toEqual(times);
  });

  it("the caller's own time always wins, in either field the endpoint reads", async () => {
    const adapter = adapterWith(h, async (ctx) => {
      trackEvent(ctx, { type: 'customEvent', name: 'a', extraInfo: { timestamp: '2026-04-30T08:00:00.000Z' } });
      trackEvent(ctx, { type: 'customEvent', name: 'b', metadata: { timestamp: 1_777_536_000_000 } } as never);
      trackEvent(ctx, { type: 'revenueEvent', name: 'c', amount: 1, metadata: { timestamp: '2026-04-30T09:00:00.000Z', sku: 'x' } });
    });
    await send(adapter, userMessage({ text: 'hi' }));
    const events = (await h.records()).filter((r) => r.type === 'event').map((r) => r.body);
    expect(events.map((e) => [e.extraInfo, e.metadata])).toEqual([
      [{ timestamp: '2026-04-30T08:00:00.000Z' }, undefined],
      [undefined, { timestamp: 1_777_536_000_000 }],
      [undefined, { timestamp: '2026-04-30T09:00:00.000Z', sku: 'x' }],
    ]);
  });

  it("an event from an activity is dated with the activity's own timestamp: an incoming event, Teams feedback, a membership change, the bot's own event", async () => {
    const adapter = adapterWith(h, async (ctx) => {
      if (ctx.activity.type === 'message') await ctx.sendActivity({ type: 'event', name: 'cart', value: { items: 1 }, timestamp: new Date('2026-05-01T10:00:09.000Z') } as Partial<Activity>);
    }, { trackEventActivities: true, trackMembership: true, trackBotEvents: true });
    const at = (s: number) => new Date(Date.UTC(2026, 4, 1, 10, 0, s));
    await send(adapter, userMessage({ type: 'event', name: 'webchat/join', text: undefined, value: { lang: 'en' }, timestamp: at(1) }));
    await send(adapter, userMessage({ type: 'invoke', name: 'message/submitAction', text: undefined, channelId: 'msteams', replyToId: 'r-1', value: { actionName: 'feedback', actionValue: { reaction: 'like' } }, timestamp: at(2) }));
    await send(adapter, userMessage({ type: 'conversationUpdate', text: undefined, membersAdded: [{ id: 'user-2', name: 'Bo' }], timestamp: at(3) }));
    await send(adapter, userMessage({ text: 'go', timestamp: at(4) }));
    const events = (await h.records()).filter((r) => r.type === 'event');
    // Two users' records may interleave: compared by name.
    expect(Object.fromEntries(events.map((e) => [e.body.name, e.body.extraInfo.timestamp]))).toEqual({
      'webchat/join': '2026-05-01T10:00:01.000Z',
      feedback: '2026-05-01T10:00:02.000Z',
      memberAdded: '2026-05-01T10:00:03.000Z',
      cart: '2026-05-01T10:00:09.000Z',
    });
  });

  it("the bot's event without a timestamp is dated with its send time; an incoming event's value with a time of its own keeps it", async () => {
    let sent = [0, 0];
    const adapter = adapterWith(h, async (ctx) => {
      if (ctx.activity.type !== 'message') return;
      const before = Date.now();
      await ctx.sendActivity({ type: 'event', name: 'cart' } as Partial<Activity>);
      sent = [before, Date.now()];
    }, { trackEventActivities: true, trackBotEvents: true });
    await send(adapter, userMessage({ text: 'go' }));
    await send(adapter, userMessage({ type: 'event', name: 'synced', text: undefined, value: { timestamp: '2026-04-01T00:00:00.000Z' } }));
    const events = (await h.records()).filter((r) => r.type === 'event');
    expect(ms(events[0].body.extraInfo.timestamp)).toBeGreaterThanOrEqual(sent[0]);
    expect(ms(events[0].body.extraInfo.timestamp)).toBeLessThanOrEqual(sent[1]);
    expect(events[1].body.extraInfo).toEqual({ timestamp: '2026-04-01T00:00:00.000Z' });
  });

  it('an incoming event whose timestamp is not a time, or cannot be read, is dated with when the turn began', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    const before = Date.now();
    await send(adapter, userMessage({ type: 'event', name: 'odd', text: undefined, timestamp: 'yesterday' as never }));
    // A getter that throws (the adapter would trip on it first, so the logger is driven directly).
    const records = new RecordLogger(h.client, { trackEventActivities: true }, undefined);
    const hostile = Object.defineProperty(userMessage({ type: 'event', name: 'hostile', text: undefined }), 'timestamp', { get() { throw new Error('no time'); } });
    records.deferIncoming(hostile as never, undefined, before);
    const events = await h.records();
    expect(h.errors).toEqual([]);
    expect(events.map((e) => e.body.name)).toEqual(['odd', 'hostile']);
    expect(ms(events[0].body.extraInfo.timestamp)).toBeGreaterThanOrEqual(before);
    expect(ms(events[0].body.extraInfo.timestamp)).toBeLessThanOrEqual(Date.now());
    expect(events[1].body.extraInfo.timestamp).toBe(new Date(before).toISOString());
  });
});
