import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { KEY, Q, message, start, track } from '../helpers.js';

const webhook = (senderId: string, text: string) => ({
  object: 'page',
  entry: [{ id: 'page-1', time: 1_700_000_000_000, messaging: [{ sender: { id: senderId }, recipient: { id: 'page-1' }, timestamp: 1_700_000_000_000, message: { mid: 'm1', seq: 1, text } }] }],
});

const sendApi = (recipientId: string, text: string) => ({
  qs: { access_token: 'page-token' },
  uri: 'https://graph.example/v2.6/me/messages',
  method: 'POST',
  json: { recipient: { id: recipientId }, message: { text } },
  responseBody: { recipient_id: recipientId, message_id: 'mid.1' },
});

describe('POST /track accepts what the spec describes', () => {
  let endpoint: TrackingEndpoint;
  beforeEach(async () => {
    endpoint = await start();
  });
  afterEach(() => endpoint.close());

  it('answers 200 with { ok: true, id } for a universal incoming message', async () => {
    const res = await track(endpoint, Q.universalIn, message('u1', 'hello'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ ok: true, id: 1 });
  });

  it.each([
    ['sms incoming', Q.smsIn, message('+15550100', 'hi')],
    ['universal outgoing', Q.universalOut, message('u1', 'hi back')],
    ['direct-message incoming with buttons and images', Q.dmIn, message('u1', 'pick', { buttons: [{ id: 'a', label: 'A', value: 'a' }], images: [{ url: 'https://x/y.png' }] })],
    ['direct-message outgoing with an intent', Q.dmOut, message('u1', 'ok', { intent: { name: 'confirm', inputs: [{ name: 'answer', value: 'yes' }] } })],
    ['messenger webhook payload', Q.fbIn, webhook('fb-user', 'hi page')],
    ['messenger send-API payload', Q.fbOut, sendApi('fb-user', 'hi user')],
    ['customEvent', Q.dmEvent, { name: 'signup', type: 'customEvent', userId: 'u1', extraInfo: { plan: 'pro' } }],
    ['revenueEvent', Q.dmEvent, { name: 'purchase', type: 'revenueEvent', userId: 'u1', amount: 9.99, referenceNumber: 'R-1' }],
    ['pageLaunchEvent', Q.dmEvent, { name: 'open', type: 'pageLaunchEvent', userId: 'u1', extraInfo: { url: 'https://x' } }],
    ['shareEvent on the messenger platform', Q.fbEvent, { name: 'share', type: 'shareEvent', userId: 'u1', sharedMessage: { text: 'look' } }],
  ])('stores a %s', async (_name, query, body) => {
    const res = await track(endpoint, query, body);
    expect(res).toMatchObject({ status: 200, body: { ok: true, id: 1 } });
    // A messenger page access token is not kept: the endpoint stores a marker instead.
    const expected = structuredClone(body) as { qs?: { access_token?: string } };
    if (typeof expected.qs?.access_token === 'string') expected.qs.access_token = '[access token removed by the endpoint]';
    expect((await endpoint.store.records({ limit: 1_000_000 }))[0]).toMatchObject({ seq: 1, platform: query.platform, v: query.v, type: query.type, body: expected });
  });

  it('gives each accepted record the next id', async () => {
    const ids = [];
    for (const text of ['one', 'two', 'three']) ids.push((await track(endpoint, Q.universalIn, message('u1', text))).body.id);
    expect(ids).toEqual([1, 2, 3]);
  });

  it('accepts a Content-Type with a charset parameter', async () => {
    const res = await track(endpoint, Q.universalIn, message('u1', 'hi'), { 'content-type': 'Application/JSON; charset=utf-8' });
    expect(res.status).toBe(200);
  });

  it('accepts the scripted form: type=generic with only apiKey and a {text} body', async () => {
    const res = await track(endpoint, Q.scripted, { text: 'nightly job finished' });
    expect(res).toMatchObject({ status: 200, body: { ok: true, id: 1 } });
    expect((await endpoint.store.records({ limit: 1_000_000 }))[0]).toMatchObject({ type: 'generic', platform: null, v: null, body: { text: 'nightly job finished' } });
  });

  it('refuses a scripted body without text, naming the path', async () => {
    const res = await track(endpoint, Q.scripted, { message: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([{ path: 'text', expected: 'required', received: 'missing' }]);
  });

  it('stores a fingerprint of the key, never the key itself', async () => {
    await track(endpoint, Q.universalIn, message('u1', 'hi'));
    const stored = (await endpoint.store.records({ limit: 1_000_000 }))[0];
    expect(stored.bot).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(stored)).not.toContain(KEY);
  });
});

describe('referralEvent', () => {
  const referral = { name: 'ref', type: 'referralEvent', userId: 'u1', ref: 'spring', source: 'ADS' };

  it('is refused by default (the spec does not say it is accepted)', async () => {
    const endpoint = await start();
    try {
      const res = await track(endpoint, Q.dmEvent, referral);
      expect(res.status).toBe(400);
      expect(res.body.problems[0]).toMatchObject({ path: 'type' });
    } finally {
      await endpoint.close();
    }
  });

  it('is accepted with allowReferralEvent', async () => {
    const endpoint = await start({ allowReferralEvent: true });
    try {
      expect((await track(endpoint, Q.dmEvent, referral)).status).toBe(200);
    } finally {
      await endpoint.close();
    }
  });
});

describe('platform names', () => {
  it('uses the configured direct-message and messenger values instead of twitter and facebook', async () => {
    const endpoint = await start({ platformNames: { directMessage: 'dm', messenger: 'msgr' } });
    try {
      expect((await track(endpoint, { ...Q.dmIn, platform: 'dm' }, message('u1', 'hi'))).status).toBe(200);
      expect((await track(endpoint, { ...Q.fbIn, platform: 'msgr' }, webhook('u2', 'hi'))).status).toBe(200);
      const refused = await track(endpoint, Q.dmIn, message('u1', 'hi'));
      expect(refused.status).toBe(400);
      expect(refused.body.problems).toEqual([{ path: 'platform', expected: 'one of "sms", "universal", "dm", "msgr"', received: '"twitter"' }]);
    } finally {
      await endpoint.close();
    }
  });
});
