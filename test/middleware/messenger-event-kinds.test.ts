/**
 * Nameless channel events (trackEventActivities): a Messenger event of any kind is a custom event
 * named after its kind; one without a sender is about the page and is no record; elsewhere only
 * the kinds known by name count, and an event without a user is no record either. Never a refused record.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity } from 'botbuilder';
import { customEventOf } from '../../src/middleware/events.js';
import { adapterWith, send, startHarness, timed, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const page = { id: '1029384756', name: 'Pizza Page' };
const nameless = (channelData: unknown, fields: Partial<Activity> = {}) => ({ type: 'event', channelId: 'facebook', from: { id: 'psid-1' }, conversation: { id: 'c' }, channelData, ...fields });
const messaging = (fields: Record<string, unknown>) => ({ sender: { id: 'psid-1' }, recipient: { id: page.id }, timestamp: 1_714_557_600_000, ...fields });

describe('customEventOf a nameless Messenger event', () => {
  it('is named after its first field besides sender, recipient, timestamp and prior_message', () => {
    expect(customEventOf(nameless(messaging({ prior_message: { source: 'checkbox_plugin' }, branded_camera: { event: 'capture' } })))).toEqual({
      type: 'customEvent', name: 'branded_camera', userId: 'psid-1', conversationId: 'c', extraInfo: { event: 'capture' },
    });
  });

  it('a kind known by name comes first, wherever it is; a field that is null is no kind; a kind that is not an object is under `value`', () => {
    expect(customEventOf(nameless(messaging({ something_new: { a: 1 }, optin: { ref: 'r' } })))?.name).toBe('optin');
    expect(customEventOf(nameless(messaging({ gone: null, later: undefined, upcoming: 'yes' })))).toMatchObject({ name: 'upcoming', extraInfo: { value: 'yes' } });
    expect(customEventOf(nameless(messaging({ upcoming: 0 })))).toMatchObject({ name: 'upcoming', extraInfo: { value: 0 } });
  });

  it('with only the envelope, it has no kind and is not recorded', () => {
    expect(customEventOf(nameless(messaging({})))).toBeUndefined();
  });

  it("the user is the activity's from.id, as for every event, else its sender (a numeric id as its digits)", () => {
    expect(customEventOf(nameless(messaging({ sender: { id: 'psid-as-sent' }, branded_camera: {} })))).toMatchObject({ userId: 'psid-1' });
    expect(customEventOf(nameless(messaging({ sender: { id: 42 }, branded_camera: {} }), { from: undefined }))).toMatchObject({ userId: '42', name: 'branded_camera' });
  });

  it('without a sender (or with a sender without an id) it is about the page: not recorded, even when the activity has a from.id', () => {
    const pageLevel = { recipient: { id: page.id }, timestamp: 1, policy_enforcement: { action: 'block' } };
    expect(customEventOf(nameless(pageLevel, { from: undefined }))).toBeUndefined();
    expect(customEventOf(nameless(pageLevel))).toBeUndefined();
    expect(customEventOf(nameless({ ...pageLevel, sender: {} }))).toBeUndefined();
    expect(customEventOf(nameless({ ...pageLevel, sender: 'psid-1' }))).toBeUndefined();
  });

  it('channelData without a recipient id or a numeric timestamp is not a Messenger event: only kinds known by name count', () => {
    for (const data of [{ recipient: { id: page.id }, timestamp: '1', branded_camera: {} }, { recipient: {}, timestamp: 1, branded_camera: {} }, { recipient: page.id, timestamp: 1, branded_camera: {} }, { timestamp: 1, branded_camera: {} }]) {
      expect(customEventOf(nameless(data))).toBeUndefined();
      expect(customEventOf(nameless({ ...data, optin: { ref: 'r' } }))?.name).toBe('optin');
    }
  });

  it('a numeric recipient id counts as an id', () => {
    expect(customEventOf(nameless({ sender: { id: 'psid-1' }, recipient: { id: 1029384756 }, timestamp: 1, branded_camera: {} }))?.name).toBe('branded_camera');
  });

  it('a nameless event that is not from Messenger and has no user is not recorded', () => {
    expect(customEventOf(nameless({ optin: { ref: 'r' } }, { channelId: 'webchat', from: undefined }))).toBeUndefined();
    expect(customEventOf(nameless({ optin: { ref: 'r' } }, { channelId: 'webchat' }))).toMatchObject({ name: 'optin', userId: 'psid-1' });
  });
});

describe('through the middleware', () => {
  it('kinds on no list are recorded, page-level events and receipts are not, and nothing is refused', async () => {
    const adapter = adapterWith(h, async () => undefined, { trackEventActivities: true });
    const event = (channelData: Record<string, unknown>, fields: Partial<Activity> = {}) => userMessage({ type: 'event', name: undefined, text: undefined, channelId: 'facebook', from: { id: 'psid-1', name: '' }, recipient: page, channelData, ...fields });
    await send(adapter, event(messaging({ branded_camera: { content_ids: ['1'], event: 'capture' } })));
    await send(adapter, event({ recipient: { id: page.id }, timestamp: 2, app_roles: { 263902037430900: ['primary_receiver'] } }, { from: undefined }));
    await send(adapter, event({ recipient: { id: page.id }, timestamp: 3, policy_enforcement: { action: 'block', reason: 'spam' } }, { from: undefined }));
    await send(adapter, event(messaging({ delivery: { mids: ['m_1'], watermark: 1 } })));
    await send(adapter, event(messaging({ messaging_feedback: { feedback_screens: [] } })));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.platform, r.type, r.body.name, r.body.userId, r.body.extraInfo])).toEqual([
      ['facebook', 'event', 'branded_camera', 'psid-1', timed({ content_ids: ['1'], event: 'capture' })],
      ['facebook', 'event', 'messaging_feedback', 'psid-1', timed({ feedback_screens: [] })],
    ]);
  });
});
