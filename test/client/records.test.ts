import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, TrackingValidationError } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

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

const message = { text: 'hello', userId: 'user-1', intent: { name: 'Greet', inputs: [{ name: 'who', value: 'bot' }] } };

describe('what goes over the wire', () => {
  it.each([
    ['sms', 'sms', '11.1.0-rest'],
    ['universal', 'universal', '10.1.1-rest'],
    ['directMessage', 'twitter', '11.1.0-rest'],
  ] as const)('%s messages go to /track with platform %s and v %s, in both directions', async (tracker, platform, v) => {
    await client[tracker].logIncoming(message);
    await client[tracker].logOutgoing({ ...message, text: 'hi back' });
    expect(sink.requests.map((r) => [r.method, r.path, r.query])).toEqual([
      ['POST', '/track', { platform, v, type: 'incoming', apiKey: KEY }],
      ['POST', '/track', { platform, v, type: 'outgoing', apiKey: KEY }],
    ]);
    expect(sink.requests[0].headers['content-type']).toBe('application/json');
    expect(sink.requests[0].body).toEqual(message);
    // The outgoing message is dated with the time it was logged, where the endpoint reads a message's time.
    expect(sink.requests[1].body).toEqual({ ...message, text: 'hi back', platformJson: { timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) } });
  });

  it('sends the messenger webhook payload unchanged, intent on each message', async () => {
    const payload = {
      object: 'page',
      entry: [{ id: 'P', time: 1, messaging: [{ sender: { id: 'U' }, recipient: { id: 'P' }, timestamp: 2, message: { mid: 'm', seq: 1, text: 'hi' }, intent: { name: 'Greet', inputs: [] } }] }],
    };
    await client.messenger.logIncoming(payload);
    expect(sink.requests[0].query).toEqual({ platform: 'facebook', v: '11.1.0-rest', type: 'incoming', apiKey: KEY });
    expect(sink.requests[0].body).toEqual(payload);
  });

  it('sends messenger outgoing as the request data plus the response body, intent at the root', async () => {
    const requestData = {
      uri: 'https://graph.example.test/me/messages',
      method: 'POST',
      json: { recipient: { id: 'U' }, message: { text: 'hello' } },
      intent: { name: 'Greet', inputs: [] },
    };
    await client.messenger.logOutgoing(requestData, { recipient_id: 'U', message_id: 'mid.9' });
    expect(sink.requests[0].query.type).toBe('outgoing');
    expect(sink.requests[0].body).toEqual({ ...requestData, responseBody: { recipient_id: 'U', message_id: 'mid.9' } });
  });

  it('sends shareEvent on the messenger platform and other events on the direct-message platform, all with 11.1.0-rest', async () => {
    await client.logEvent({ type: 'shareEvent', name: 'share', userId: 'U', sharedMessage: { text: 'look' } });
    await client.logEvent({ type: 'revenueEvent', name: 'buy', userId: 'U', amount: 9.99, referenceNumber: 'R1', metadata: { sku: 'x' } });
    await client.logEvent({ type: 'customEvent', name: 'c', userId: 'U', conversationId: 'C', extraInfo: { a: 1 } });
    await client.logEvent({ type: 'pageLaunchEvent', name: 'open', userId: 'U', extraInfo: { url: 'https://x.test' } });
    expect(sink.requests.map((r) => [r.query.platform, r.query.v, r.query.type, r.body.type])).toEqual([
      ['facebook', '11.1.0-rest', 'event', 'shareEvent'],
      ['twitter', '11.1.0-rest', 'event', 'revenueEvent'],
      ['twitter', '11.1.0-rest', 'event', 'customEvent'],
      ['twitter', '11.1.0-rest', 'event', 'pageLaunchEvent'],
    ]);
    expect(sink.requests[1].body).toEqual({ type: 'revenueEvent', name: 'buy', userId: 'U', amount: 9.99, referenceNumber: 'R1', metadata: { sku: 'x', timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) } });
  });

  it('sends an event on the platform given', async () => {
    await client.logEvent({ type: 'customEvent', name: 'c', userId: 'U' }, { platform: 'universal' });
    expect(sink.requests[0].query).toMatchObject({ platform: 'universal', v: '11.1.0-rest', type: 'event' });
  });

  it('uses the configured wire values of the direct-message and messenger platforms', async () => {
    const custom = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, platformNames: { directMessage: 'dm', messenger: 'fbm' } });
    await custom.directMessage.logIncoming(message);
    await custom.logEvent({ type: 'shareEvent', name: 's', userId: 'U' });
    await custom.close();
    expect(sink.requests.map((r) => r.query.platform)).toEqual(['dm', 'fbm']);
  });

  it('resolves with the delivery result once the endpoint accepted the record', async () => {
    await expect(client.sms.logIncoming(message)).resolves.toEqual({ status: 'delivered', httpStatus: 200, attempts: 1 });
  });

  it('sends referralEvent only when allowReferralEvent is set', async () => {
    const referral = { type: 'referralEvent' as const, name: 'ref', userId: 'U', ref: 'tag', source: 'ADS', adid: 'a1', refereruri: 'https://r.test' };
    await expect(client.logEvent(referral)).rejects.toBeInstanceOf(TrackingValidationError);
    const allowing = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, allowReferralEvent: true });
    await allowing.logEvent(referral);
    await allowing.close();
    expect(sink.requests).toHaveLength(1);
    expect(sink.requests[0].body).toEqual(referral);
  });
});

describe('bad input', () => {
  it('rejects at once with every offending path, and sends nothing', async () => {
    const error = await client.sms.logIncoming({ text: 5, intent: { name: 'X', inputs: [{ name: 'n', value: 1 }] } } as never).catch((e) => e);
    expect(error).toBeInstanceOf(TrackingValidationError);
    expect(error.issues.map((i: { path: string }) => i.path)).toEqual(['text', 'userId', 'intent.inputs[0].value']);
    expect(error.message).toContain('userId is required');
    await client.flush();
    expect(sink.requests).toHaveLength(0);
  });

  it('refuses an unknown event type and a non-finite revenue amount', async () => {
    await expect(client.logEvent({ type: 'purchaseEvent', name: 'p', userId: 'u' } as never)).rejects.toMatchObject({ name: 'TrackingValidationError', issues: [{ path: 'type' }] });
    await expect(client.logEvent({ type: 'revenueEvent', name: 'p', userId: 'u', amount: Number.NaN })).rejects.toMatchObject({ issues: [{ path: 'amount', received: 'NaN' }] });
    await client.flush();
    expect(sink.requests).toHaveLength(0);
  });

  it('refuses a record with a cycle instead of throwing', async () => {
    const platformJson: Record<string, unknown> = {};
    platformJson.self = platformJson;
    await expect(client.sms.logIncoming({ text: 't', userId: 'u', platformJson })).rejects.toMatchObject({
      name: 'TrackingValidationError',
      issues: [{ path: '(root)', expected: expect.stringContaining('JSON-serializable') }],
    });
  });

  it('refuses a record larger than maxBodyBytes', async () => {
    const small = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: false, maxBodyBytes: 100 });
    await expect(small.sms.logIncoming({ text: 'é'.repeat(60), userId: 'u' })).rejects.toMatchObject({ issues: [{ expected: expect.stringContaining('at most 100 bytes') }] });
    await small.close();
  });

  it('refuses an unknown platform passed to track(), naming the platforms it knows', async () => {
    const error = (await client.track('slack' as never, 'incoming', { text: 't', userId: 'u' }).catch((e: unknown) => e)) as TrackingValidationError;
    expect(error).toBeInstanceOf(TrackingValidationError);
    expect(error.issues).toEqual([{ path: 'platform', expected: 'one of sms, universal, directMessage, messenger', received: 'slack' }]);
    expect(error.message).toBe('record does not conform to the tracking spec and was not sent: platform: expected one of sms, universal, directMessage, messenger, got slack');
    expect(sink.requests).toEqual([]);
  });

  it('refuses a messenger outgoing record that is not an object, as it was given (no response body)', async () => {
    await expect(client.messenger.logOutgoing(null as never)).rejects.toMatchObject({
      name: 'TrackingValidationError',
      issues: [{ path: '(root)', expected: 'an object', received: 'null' }],
    });
  });
});
