/**
 * The plain client dates what it is given to log (issue 28, part 0): `logOutgoing` of a generic
 * message in `platformJson.timestamp`, `logEvent` in `extraInfo.timestamp` (custom, page launch) or
 * `metadata.timestamp` (revenue), where the endpoint reads a record's time; a time the caller gave
 * always wins; shapes without such a place (share and referral events, messenger outgoing) get none.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient } from '../../src/index.js';
import { eventWithTime, messageWithTime } from '../../src/client/record-time.js';
import { startSink, type Sink } from '../helpers/sink.js';

const AT = '2026-05-01T10:00:00.000Z';

describe('messageWithTime', () => {
  it('adds platformJson.timestamp, to the platformJson given or to a new one, without changing the caller\'s objects', () => {
    const message = { text: 'hi', userId: 'u', platformJson: { id: 'a-1' } };
    expect(messageWithTime(message, AT)).toEqual({ text: 'hi', userId: 'u', platformJson: { id: 'a-1', timestamp: AT } });
    expect(message.platformJson).toEqual({ id: 'a-1' });
    expect(messageWithTime({ text: 'hi', userId: 'u' }, AT)).toEqual({ text: 'hi', userId: 'u', platformJson: { timestamp: AT } });
    expect(messageWithTime({ text: 'hi', userId: 'u', platformJson: null as never }, AT)).toEqual({ text: 'hi', userId: 'u', platformJson: { timestamp: AT } });
    expect(messageWithTime({ text: 'hi', userId: 'u', platformJson: { timestamp: null } }, AT).platformJson).toEqual({ timestamp: AT });
  });

  it("keeps the caller's time, and leaves alone what is not a message with an object platformJson", () => {
    const own = { text: 'hi', userId: 'u', platformJson: { timestamp: 0 } };
    expect(messageWithTime(own, AT)).toBe(own);
    const listed = { text: 'hi', userId: 'u', platformJson: [1] as never };
    expect(messageWithTime(listed, AT)).toBe(listed);
    const text = { text: 'hi', userId: 'u', platformJson: 'raw' as never };
    expect(messageWithTime(text, AT)).toBe(text);
    expect(messageWithTime(null as never, AT)).toBeNull();
    expect(messageWithTime(['x'] as never, AT)).toEqual(['x']);
  });
});

describe('eventWithTime', () => {
  it('custom and page-launch events in extraInfo, revenue events in metadata; a new object each time', () => {
    const custom = { type: 'customEvent' as const, name: 'c', userId: 'u', extraInfo: { a: 1 } };
    expect(eventWithTime(custom, AT)).toEqual({ ...custom, extraInfo: { a: 1, timestamp: AT } });
    expect(custom.extraInfo).toEqual({ a: 1 });
    expect(eventWithTime({ type: 'pageLaunchEvent', name: 'p', userId: 'u' }, AT)).toEqual({ type: 'pageLaunchEvent', name: 'p', userId: 'u', extraInfo: { timestamp: AT } });
    expect(eventWithTime({ type: 'revenueEvent', name: 'r', userId: 'u', amount: 1 }, AT)).toEqual({ type: 'revenueEvent', name: 'r', userId: 'u', amount: 1, metadata: { timestamp: AT } });
    expect(eventWithTime({ type: 'revenueEvent', name: 'r', userId: 'u', amount: 1, metadata: { sku: 'x' } }, AT).metadata).toEqual({ sku: 'x', timestamp: AT });
  });

  it("keeps a time the caller put in either field; share and referral events and unknown types have no place for one", () => {
    const inExtra = { type: 'customEvent' as const, name: 'c', userId: 'u', extraInfo: { timestamp: '2026-04-01T00:00:00.000Z' } };
    expect(eventWithTime(inExtra, AT)).toBe(inExtra);
    const inMetadata = { type: 'customEvent', name: 'c', userId: 'u', metadata: { timestamp: 5 } } as never;
    expect(eventWithTime(inMetadata, AT)).toBe(inMetadata);
    const revenue = { type: 'revenueEvent' as const, name: 'r', userId: 'u', amount: 1, extraInfo: { timestamp: 5 } } as never;
    expect(eventWithTime(revenue, AT)).toBe(revenue);
    for (const event of [{ type: 'shareEvent', name: 's', userId: 'u' }, { type: 'referralEvent', name: 'r', userId: 'u' }, { type: 'other', name: 'o', userId: 'u' }, { name: 'n', userId: 'u' }]) {
      expect(eventWithTime(event as never, AT)).toBe(event);
    }
  });

  it('a null time is no time; a field that is not an object is left for validation to refuse', () => {
    expect(eventWithTime({ type: 'customEvent', name: 'c', userId: 'u', extraInfo: { timestamp: null } }, AT).extraInfo).toEqual({ timestamp: AT });
    expect(eventWithTime({ type: 'customEvent', name: 'c', userId: 'u', extraInfo: null as never }, AT).extraInfo).toEqual({ timestamp: AT });
    const wrong = { type: 'customEvent' as const, name: 'c', userId: 'u', extraInfo: 'text' as never };
    expect(eventWithTime(wrong, AT)).toBe(wrong);
    expect(eventWithTime(undefined as never, AT)).toBeUndefined();
  });
});

describe('the plain client', () => {
  const KEY = 'test-key-4f9a';
  let sink: Sink;
  let client: TrackingClient;
  beforeEach(async () => {
    sink = await startSink();
    client = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false });
  });
  afterEach(async () => {
    await client.close();
    await sink.close();
  });

  it('dates logOutgoing and logEvent with the time of the call, not of delivery; logIncoming and messenger records are sent as given', async () => {
    const before = Date.now();
    const pending = [
      client.universal.logOutgoing({ text: 'reply', userId: 'u' }),
      client.logEvent({ type: 'customEvent', name: 'c', userId: 'u' }),
      client.logEvent({ type: 'revenueEvent', name: 'r', userId: 'u', amount: 2 }),
      client.logEvent({ type: 'shareEvent', name: 's', userId: 'u' }),
      client.universal.logIncoming({ text: 'hi', userId: 'u' }),
      client.messenger.logOutgoing({ json: { recipient: { id: 'u' }, message: { text: 'x' } } }),
    ];
    const after = Date.now();
    await Promise.all(pending);
    const [outgoing, custom, revenue, share, incoming, messenger] = sink.requests.map((r) => r.body);
    for (const time of [outgoing.platformJson.timestamp, custom.extraInfo.timestamp, revenue.metadata.timestamp]) {
      expect(Date.parse(time)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(time)).toBeLessThanOrEqual(after);
    }
    expect(share).toEqual({ type: 'shareEvent', name: 's', userId: 'u' });
    expect(incoming).toEqual({ text: 'hi', userId: 'u' });
    expect(messenger).toEqual({ json: { recipient: { id: 'u' }, message: { text: 'x' } } });
  });

  it("the caller's time wins", async () => {
    await client.sms.logOutgoing({ text: 'reply', userId: 'u', platformJson: { timestamp: AT } });
    await client.logEvent({ type: 'customEvent', name: 'c', userId: 'u', extraInfo: { timestamp: 1_714_557_600_000 } });
    expect(sink.requests.map((r) => r.body)).toEqual([
      { text: 'reply', userId: 'u', platformJson: { timestamp: AT } },
      { type: 'customEvent', name: 'c', userId: 'u', extraInfo: { timestamp: 1_714_557_600_000 } },
    ]);
  });
});
