/**
 * Who a record belongs to (records.ts), as `ignoreUsers` sees it: a messenger incoming record's
 * sender, a messenger outgoing record's recipient, and for every other record (messenger events
 * included) its `userId`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient } from '../../src/index.js';
import { userIdOf } from '../../src/client/records.js';
import { startSink, type Sink } from '../helpers/sink.js';

let sink: Sink;
let client: TrackingClient | undefined;

beforeEach(async () => {
  sink = await startSink();
});

afterEach(async () => {
  await client?.close(1_000);
  await sink.close();
});

describe('the user of a record', () => {
  it('is what ignoreUsers sees, for each kind of record', async () => {
    const seen: string[] = [];
    client = new TrackingClient({ apiKey: 'user-key-1', baseUrl: sink.url, logger: false, ignoreUsers: (id) => (seen.push(id), id === 'ignored') });
    await client.messenger.logIncoming({ object: 'page', entry: [{ id: 'PAGE', time: 1, messaging: [{ sender: { id: 'sender-1' }, recipient: { id: 'PAGE' }, timestamp: 1 }] }] });
    await client.messenger.logOutgoing({ json: { recipient: { id: 'recipient-1' }, message: { text: 'hi' } } });
    await client.logEvent({ type: 'shareEvent', name: 'shared', userId: 'sharer-1' } as never, { platform: 'messenger' });
    await client.sms.logOutgoing({ text: 'x', userId: 'sms-1' });
    await expect(client.messenger.logOutgoing({ json: { recipient: { id: 'ignored' }, message: { text: 'no' } } })).resolves.toEqual({ status: 'skipped', reason: 'ignored-user' });
    expect(seen).toEqual(['sender-1', 'recipient-1', 'sharer-1', 'sms-1', 'ignored']);
    expect(sink.requests).toHaveLength(4);
  });

  it('is read from the body: sender, recipient or userId', () => {
    expect(userIdOf({ platform: 'messenger', type: 'incoming', body: { entry: [{ messaging: [{ sender: { id: 's' } }] }] } })).toBe('s');
    expect(userIdOf({ platform: 'messenger', type: 'outgoing', body: { json: { recipient: { id: 'r' } } } })).toBe('r');
    expect(userIdOf({ platform: 'messenger', type: 'event', body: { userId: 'e', json: { recipient: { id: 'r' } } } })).toBe('e');
    expect(userIdOf({ platform: 'sms', type: 'incoming', body: { userId: 'u', entry: [{ messaging: [{ sender: { id: 's' } }] }] } })).toBe('u');
    // A body without those parts (userIdOf is exported: it may be given anything) has no user, and does not throw.
    for (const body of [{}, { entry: [] }, { entry: [{}] }, { entry: [{ messaging: [] }] }, { entry: [{ messaging: [{}] }] }]) {
      expect(userIdOf({ platform: 'messenger', type: 'incoming', body })).toBeUndefined();
    }
    for (const body of [{}, { json: {} }]) expect(userIdOf({ platform: 'messenger', type: 'outgoing', body })).toBeUndefined();
  });
});
