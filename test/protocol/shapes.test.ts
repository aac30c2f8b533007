import { describe, expect, it } from 'vitest';
import { check, genericSchema, PLATFORM_KINDS, validate, type ValidationIssue } from '../../src/protocol/index.js';

// What each record body must hold, per the spec's tables, and what a refusal says about it: one
// case per field, so that a field the schemas stopped checking (or started requiring) shows here.

type Body = Record<string, any>;

const messengerIncoming = (): Body => ({
  object: 'page',
  entry: [
    {
      id: 'PAGE_ID',
      time: 1458692752478,
      messaging: [
        {
          sender: { id: 'USER_ID' },
          recipient: { id: 'PAGE_ID' },
          timestamp: 1458692752478,
          message: { mid: 'mid.1', seq: 73, text: 'hello' },
        },
      ],
    },
  ],
});

const messengerOutgoing = (): Body => ({
  qs: { access_token: 'page-token' },
  uri: 'https://graph.example.test/v2.6/me/messages',
  json: { message: { text: 'hi there' }, recipient: { id: 'USER_ID' } },
  method: 'POST',
  responseBody: { recipient_id: 'USER_ID', message_id: 'mid.2' },
});

/** The one problem validate() finds after `change` is applied to a valid body. */
function problemAfter(kind: Parameters<typeof validate>[0], type: Parameters<typeof validate>[1], make: () => Body, change: (body: Body) => void, options = {}): ValidationIssue[] {
  const body = make();
  change(body);
  return validate(kind, type, body, options);
}

describe('a messenger incoming body', () => {
  const refused = (change: (body: Body) => void) => problemAfter('messenger', 'incoming', messengerIncoming, change);
  const messaging = (body: Body) => body.entry[0].messaging[0];

  it('accepts the webhook payload as the platform delivered it', () => {
    expect(validate('messenger', 'incoming', messengerIncoming())).toEqual([]);
  });

  it.each<[string, (body: Body) => void, ValidationIssue]>([
    ['no object kind', (b) => delete b.object, { path: 'object', expected: 'required', received: 'missing' }],
    ['an object kind that is not a string', (b) => (b.object = 1), { path: 'object', expected: 'a string', received: 'number' }],
    ['no entry list', (b) => delete b.entry, { path: 'entry', expected: 'required', received: 'missing' }],
    ['an entry that is not a list', (b) => (b.entry = {}), { path: 'entry', expected: 'a non-empty array', received: 'object' }],
    ['an empty entry list', (b) => (b.entry = []), { path: 'entry', expected: 'a non-empty array', received: 'empty array' }],
    ['an entry id that is not a string', (b) => (b.entry[0].id = 42), { path: 'entry[0].id', expected: 'a string', received: 'number' }],
    ['an entry time that is not a number', (b) => (b.entry[0].time = '2016-03-23'), { path: 'entry[0].time', expected: 'a finite number', received: 'string' }],
    ['an entry without messaging', (b) => delete b.entry[0].messaging, { path: 'entry[0].messaging', expected: 'required', received: 'missing' }],
    ['an empty messaging list', (b) => (b.entry[0].messaging = []), { path: 'entry[0].messaging', expected: 'a non-empty array', received: 'empty array' }],
    ['messaging that is not a list', (b) => (b.entry[0].messaging = 'hello'), { path: 'entry[0].messaging', expected: 'a non-empty array', received: 'string' }],
    ['a message without sender', (b) => delete messaging(b).sender, { path: 'entry[0].messaging[0].sender', expected: 'required', received: 'missing' }],
    ['a sender without id', (b) => (messaging(b).sender = {}), { path: 'entry[0].messaging[0].sender.id', expected: 'required', received: 'missing' }],
    ['an empty sender id', (b) => (messaging(b).sender.id = ''), { path: 'entry[0].messaging[0].sender.id', expected: 'a non-empty string', received: 'empty string' }],
    ['a numeric sender id', (b) => (messaging(b).sender.id = 1234), { path: 'entry[0].messaging[0].sender.id', expected: 'a non-empty string', received: 'number' }],
    ['a message without recipient', (b) => delete messaging(b).recipient, { path: 'entry[0].messaging[0].recipient', expected: 'required', received: 'missing' }],
    ['a recipient without id', (b) => (messaging(b).recipient = {}), { path: 'entry[0].messaging[0].recipient.id', expected: 'required', received: 'missing' }],
    ['a numeric recipient id', (b) => (messaging(b).recipient.id = 1234), { path: 'entry[0].messaging[0].recipient.id', expected: 'a string', received: 'number' }],
    ['a message without timestamp', (b) => delete messaging(b).timestamp, { path: 'entry[0].messaging[0].timestamp', expected: 'required', received: 'missing' }],
    ['a timestamp that is NaN', (b) => (messaging(b).timestamp = NaN), { path: 'entry[0].messaging[0].timestamp', expected: 'a finite number', received: 'NaN' }],
    ['a message that is not an object', (b) => (messaging(b).message = 'hello'), { path: 'entry[0].messaging[0].message', expected: 'an object', received: 'string' }],
    ['a numeric message id (mid)', (b) => (messaging(b).message.mid = 1), { path: 'entry[0].messaging[0].message.mid', expected: 'a string', received: 'number' }],
    ['a seq that is not a number', (b) => (messaging(b).message.seq = '73'), { path: 'entry[0].messaging[0].message.seq', expected: 'a finite number', received: 'string' }],
    ['a message text that is not a string', (b) => (messaging(b).message.text = ['hello']), { path: 'entry[0].messaging[0].message.text', expected: 'a string', received: 'array' }],
    ['an intent without inputs', (b) => (messaging(b).intent = { name: 'Greet' }), { path: 'entry[0].messaging[0].intent.inputs', expected: 'required', received: 'missing' }],
    ['an intent with an empty name', (b) => (messaging(b).intent = { name: '', inputs: [] }), { path: 'entry[0].messaging[0].intent.name', expected: 'a non-empty string', received: 'empty string' }],
  ])('refuses %s, naming the field', (_name, change, issue) => {
    expect(refused(change)).toEqual([issue]);
  });

  it('accepts a messaging item without a message (a delivery or read notice), without mid, seq or text', () => {
    expect(refused((b) => delete messaging(b).message)).toEqual([]);
    expect(refused((b) => (messaging(b).message = {}))).toEqual([]);
  });

  it('names the entry and the message by their index', () => {
    const issues = refused((b) => {
      b.entry.push({ id: 'P2', time: 1, messaging: [messaging(b), { ...messaging(b), recipient: { id: 7 } }] });
    });
    expect(issues).toEqual([{ path: 'entry[1].messaging[1].recipient.id', expected: 'a string', received: 'number' }]);
  });

  it('takes an intent per message, not at the root of the body', () => {
    expect(refused((b) => (messaging(b).intent = { name: 'Greet', inputs: [{ name: 'who', value: 'me' }] }))).toEqual([]);
    // At the root the intent is an unknown field: passed through, not checked.
    expect(refused((b) => (b.intent = 'not an intent'))).toEqual([]);
  });
});

describe('a messenger outgoing body', () => {
  const refused = (change: (body: Body) => void) => problemAfter('messenger', 'outgoing', messengerOutgoing, change);

  it('accepts the request data with the platform reply and an intent at the root', () => {
    expect(refused((b) => (b.intent = { name: 'Greet', inputs: [] }))).toEqual([]);
  });

  it('needs only json with a recipient id and a message', () => {
    expect(validate('messenger', 'outgoing', { json: { recipient: { id: 'U' }, message: {} } })).toEqual([]);
  });

  it.each<[string, (body: Body) => void, ValidationIssue]>([
    ['qs that is not an object', (b) => (b.qs = 'access_token=x'), { path: 'qs', expected: 'an object', received: 'string' }],
    ['an access_token that is not a string', (b) => (b.qs.access_token = 12), { path: 'qs.access_token', expected: 'a string', received: 'number' }],
    ['a uri that is not a string', (b) => (b.uri = { href: 'x' }), { path: 'uri', expected: 'a string', received: 'object' }],
    ['a method that is not a string', (b) => (b.method = 1), { path: 'method', expected: 'a string', received: 'number' }],
    ['no json', (b) => delete b.json, { path: 'json', expected: 'required', received: 'missing' }],
    ['json that is not an object', (b) => (b.json = '{}'), { path: 'json', expected: 'an object', received: 'string' }],
    ['no recipient', (b) => delete b.json.recipient, { path: 'json.recipient', expected: 'required', received: 'missing' }],
    ['a recipient without id', (b) => (b.json.recipient = {}), { path: 'json.recipient.id', expected: 'required', received: 'missing' }],
    ['an empty recipient id', (b) => (b.json.recipient.id = ''), { path: 'json.recipient.id', expected: 'a non-empty string', received: 'empty string' }],
    ['no message', (b) => delete b.json.message, { path: 'json.message', expected: 'required', received: 'missing' }],
    ['a message text that is not a string', (b) => (b.json.message.text = 5), { path: 'json.message.text', expected: 'a string', received: 'number' }],
    ['a responseBody that is not an object', (b) => (b.responseBody = []), { path: 'responseBody', expected: 'an object', received: 'array' }],
    ['a numeric recipient_id in the reply', (b) => (b.responseBody.recipient_id = 1), { path: 'responseBody.recipient_id', expected: 'a string', received: 'number' }],
    ['a numeric message_id in the reply', (b) => (b.responseBody.message_id = 2), { path: 'responseBody.message_id', expected: 'a string', received: 'number' }],
    ['an intent without name', (b) => (b.intent = { inputs: [] }), { path: 'intent.name', expected: 'required', received: 'missing' }],
  ])('refuses %s, naming the field', (_name, change, issue) => {
    expect(refused(change)).toEqual([issue]);
  });

  it('accepts rich media in the message, with no text', () => {
    expect(refused((b) => (b.json.message = { attachment: { type: 'image', payload: { url: 'https://x.test/a.png' } } }))).toEqual([]);
  });
});

describe('messenger bodies are told apart by direction', () => {
  it('refuses a generic message as a messenger record, in both directions', () => {
    expect(validate('messenger', 'incoming', { text: 'hi', userId: 'u' }).map((i) => i.path)).toEqual(['object', 'entry']);
    expect(validate('messenger', 'outgoing', { text: 'hi', userId: 'u' }).map((i) => i.path)).toEqual(['json']);
  });

  it('refuses an outgoing body sent as incoming, and the reverse', () => {
    expect(validate('messenger', 'incoming', messengerOutgoing()).map((i) => i.path)).toEqual(['object', 'entry']);
    expect(validate('messenger', 'outgoing', messengerIncoming()).map((i) => i.path)).toEqual(['json']);
  });

  it('uses the generic message shape on every other platform', () => {
    for (const kind of ['sms', 'universal', 'directMessage'] as const) {
      expect(validate(kind, 'incoming', messengerIncoming()).map((i) => i.path)).toEqual(['text', 'userId']);
      expect(validate(kind, 'outgoing', { text: 'hi', userId: 'u' })).toEqual([]);
    }
  });
});

describe('generic message fields', () => {
  const message = (): Body => ({ text: 'hi', userId: 'u' });
  const refused = (change: (body: Body) => void) => problemAfter('sms', 'incoming', message, change);

  it.each<[string, (body: Body) => void, ValidationIssue]>([
    ['an intent with an empty name', (b) => (b.intent = { name: '', inputs: [] }), { path: 'intent.name', expected: 'a non-empty string', received: 'empty string' }],
    ['intent inputs that are not a list', (b) => (b.intent = { name: 'I', inputs: {} }), { path: 'intent.inputs', expected: 'an array', received: 'object' }],
    ['an input without name', (b) => (b.intent = { name: 'I', inputs: [{ value: 'v' }] }), { path: 'intent.inputs[0].name', expected: 'required', received: 'missing' }],
    ['images that are not a list', (b) => (b.images = { url: 'x' }), { path: 'images', expected: 'an array', received: 'object' }],
    ['a button without id', (b) => (b.buttons = [{ label: 'Yes', value: 'yes' }]), { path: 'buttons[0].id', expected: 'required', received: 'missing' }],
    ['a button without label', (b) => (b.buttons = [{ id: 'b', value: 'yes' }]), { path: 'buttons[0].label', expected: 'required', received: 'missing' }],
    ['a postback without buttonClick', (b) => (b.postback = {}), { path: 'postback.buttonClick', expected: 'required', received: 'missing' }],
    ['platformJson that is a string', (b) => (b.platformJson = '{"a":1}'), { path: 'platformJson', expected: 'an object', received: 'string' }],
  ])('refuses %s, naming the field', (_name, change, issue) => {
    expect(refused(change)).toEqual([issue]);
  });

  it('treats optional fields set to undefined as absent', () => {
    expect(refused((b) => Object.assign(b, { intent: undefined, images: undefined, buttons: undefined, postback: undefined, platformJson: undefined }))).toEqual([]);
  });
});

describe('events', () => {
  const base = { name: 'purchase', userId: 'user-1', conversationId: 'conv-1' };
  const event = (type: string, extra: Body = {}) => () => ({ ...base, type, ...extra });
  const types = ['customEvent', 'revenueEvent', 'shareEvent', 'pageLaunchEvent'];
  const valid: Record<string, Body> = {
    customEvent: { extraInfo: { plan: 'pro' } },
    revenueEvent: { amount: 9.99, referenceNumber: 'INV-1', metadata: { product: 'x' } },
    shareEvent: { sharedMessage: { text: 'look' } },
    pageLaunchEvent: { extraInfo: { url: 'https://example.test' } },
    referralEvent: { ref: 'r', source: 'ADS', adid: 'ad-1', refereruri: 'https://example.test/ad' },
  };

  it.each(types)('accepts a %s with only name, userId and type (and amount for revenue)', (type) => {
    const body = { name: 'e', userId: 'u', type, ...(type === 'revenueEvent' ? { amount: 0 } : {}) };
    expect(validate('directMessage', 'event', body)).toEqual([]);
  });

  it.each(types)('refuses a %s without name or userId, or with empty ones', (type) => {
    const extra = type === 'revenueEvent' ? { amount: 1 } : {};
    expect(validate('directMessage', 'event', { type, ...extra })).toEqual([
      { path: 'name', expected: 'required', received: 'missing' },
      { path: 'userId', expected: 'required', received: 'missing' },
    ]);
    expect(validate('directMessage', 'event', { type, name: '', userId: '', ...extra })).toEqual([
      { path: 'name', expected: 'a non-empty string', received: 'empty string' },
      { path: 'userId', expected: 'a non-empty string', received: 'empty string' },
    ]);
  });

  it.each(types)('refuses a %s whose conversationId is not a string', (type) => {
    expect(problemAfter('directMessage', 'event', event(type, valid[type]), (b) => (b.conversationId = 12))).toEqual([
      { path: 'conversationId', expected: 'a string', received: 'number' },
    ]);
  });

  it.each(types)('accepts a %s with its optional properties, and without them', (type) => {
    expect(validate('directMessage', 'event', event(type, valid[type])())).toEqual([]);
    const bare: Body = event(type, valid[type])();
    for (const key of ['conversationId', 'extraInfo', 'referenceNumber', 'metadata', 'sharedMessage']) delete bare[key];
    expect(validate('directMessage', 'event', bare)).toEqual([]);
  });

  it.each<[string, string, unknown, ValidationIssue]>([
    ['customEvent', 'extraInfo', 'plan=pro', { path: 'extraInfo', expected: 'an object', received: 'string' }],
    ['revenueEvent', 'amount', '9.99', { path: 'amount', expected: 'a finite number', received: 'string' }],
    ['revenueEvent', 'referenceNumber', 12345, { path: 'referenceNumber', expected: 'a string', received: 'number' }],
    ['revenueEvent', 'metadata', ['x'], { path: 'metadata', expected: 'an object', received: 'array' }],
    ['shareEvent', 'sharedMessage', 'look', { path: 'sharedMessage', expected: 'an object', received: 'string' }],
    ['pageLaunchEvent', 'extraInfo', 'https://example.test', { path: 'extraInfo', expected: 'an object', received: 'string' }],
  ])('refuses a %s whose %s has the wrong type', (type, key, value, issue) => {
    expect(problemAfter('directMessage', 'event', event(type, valid[type]), (b) => (b[key] = value))).toEqual([issue]);
  });

  it('requires amount on a revenueEvent only', () => {
    expect(validate('directMessage', 'event', { ...base, type: 'revenueEvent' })).toEqual([{ path: 'amount', expected: 'required', received: 'missing' }]);
    for (const type of ['customEvent', 'shareEvent', 'pageLaunchEvent']) expect(validate('directMessage', 'event', { ...base, type })).toEqual([]);
  });

  it('checks only the properties of the event type: another type\'s properties pass through unchecked', () => {
    expect(validate('directMessage', 'event', { ...base, type: 'customEvent', amount: 'lots', sharedMessage: 1 })).toEqual([]);
    expect(validate('directMessage', 'event', { ...base, type: 'shareEvent', extraInfo: 1 })).toEqual([]);
  });

  it('refuses an event without a type, or whose type is not a string', () => {
    expect(validate('directMessage', 'event', base)).toEqual([{ path: 'type', expected: 'required', received: 'missing' }]);
    const [issue] = validate('directMessage', 'event', { ...base, type: ['customEvent'] });
    expect(issue).toMatchObject({ path: 'type', received: 'array' });
  });

  it('lists the four accepted types when the type is unknown, without referralEvent', () => {
    expect(validate('directMessage', 'event', { ...base, type: 'purchase' })).toEqual([
      { path: 'type', expected: 'one of "customEvent", "revenueEvent", "shareEvent", "pageLaunchEvent"', received: 'string' },
    ]);
  });

  it('lists referralEvent among the types when it is allowed', () => {
    expect(validate('directMessage', 'event', { ...base, type: 'purchase' }, { allowReferralEvent: true })).toEqual([
      { path: 'type', expected: 'one of "customEvent", "revenueEvent", "shareEvent", "pageLaunchEvent", "referralEvent"', received: 'string' },
    ]);
  });

  it('refuses referralEvent by default and when allowReferralEvent is false', () => {
    const referral = event('referralEvent', valid.referralEvent)();
    expect(validate('directMessage', 'event', referral).map((i) => i.path)).toEqual(['type']);
    expect(validate('directMessage', 'event', referral, { allowReferralEvent: false }).map((i) => i.path)).toEqual(['type']);
    expect(validate('directMessage', 'event', referral, { allowReferralEvent: true })).toEqual([]);
  });

  it('accepts a referralEvent with only name and userId when allowed, and checks its properties', () => {
    const allow = { allowReferralEvent: true };
    expect(validate('directMessage', 'event', { name: 'ref', userId: 'u', type: 'referralEvent' }, allow)).toEqual([]);
    expect(validate('directMessage', 'event', { type: 'referralEvent' }, allow).map((i) => i.path)).toEqual(['name', 'userId']);
    for (const key of ['ref', 'source', 'adid', 'refereruri', 'conversationId']) {
      expect(problemAfter('directMessage', 'event', event('referralEvent', valid.referralEvent), (b) => (b[key] = 1), allow)).toEqual([
        { path: key, expected: 'a string', received: 'number' },
      ]);
    }
  });

  it('checks an event by the event shape on every platform', () => {
    for (const kind of PLATFORM_KINDS) {
      expect(validate(kind, 'event', event('shareEvent', valid.shareEvent)())).toEqual([]);
      expect(validate(kind, 'event', { text: 'hi', userId: 'u' })).toEqual([{ path: 'type', expected: 'required', received: 'missing' }]);
    }
  });
});

describe('the scripted form (type=generic)', () => {
  it('holds a text string and nothing else is required', () => {
    expect(check(genericSchema, { text: 'hello' })).toEqual([]);
    expect(check(genericSchema, { text: '' })).toEqual([]);
    expect(check(genericSchema, {})).toEqual([{ path: 'text', expected: 'required', received: 'missing' }]);
    expect(check(genericSchema, { text: 5 })).toEqual([{ path: 'text', expected: 'a string', received: 'number' }]);
  });
});
