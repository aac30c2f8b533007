import { describe, expect, it } from 'vitest';
import {
  checkApiKey,
  defaultEventPlatform,
  platformKind,
  platformValue,
  trackUrl,
  validate,
  versionFor,
  type ValidationIssue,
} from '../../src/protocol/index.js';

const paths = (issues: ValidationIssue[]) => issues.map((i) => i.path);

const message = {
  text: 'Book a table for two',
  userId: 'user-1',
  intent: { name: 'BookTable', inputs: [{ name: 'people', value: '2' }] },
  images: [{ url: 'https://example.test/a.png' }],
  buttons: [{ id: 'b1', label: 'Yes', value: 'yes' }],
  postback: { buttonClick: { buttonId: 'b1' } },
  platformJson: { anything: [1, 2, { deep: true }] },
};

const messengerIncoming = {
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
          intent: { name: 'Greet', inputs: [] },
        },
      ],
    },
  ],
};

const messengerOutgoing = {
  qs: { access_token: 'page-token' },
  uri: 'https://graph.example.test/v2.6/me/messages',
  json: { message: { text: 'hi there' }, recipient: { id: 'USER_ID' } },
  method: 'POST',
  responseBody: { recipient_id: 'USER_ID', message_id: 'mid.2' },
  intent: { name: 'Greet', inputs: [] },
};

describe('generic messages', () => {
  it('accepts a message with every optional field', () => {
    expect(validate('sms', 'incoming', message)).toEqual([]);
    expect(validate('universal', 'outgoing', message)).toEqual([]);
    expect(validate('directMessage', 'incoming', message)).toEqual([]);
  });

  it('accepts the minimal message: text and userId', () => {
    expect(validate('sms', 'outgoing', { text: '', userId: 'u' })).toEqual([]);
  });

  it('refuses a missing or non-string userId and text, naming both', () => {
    const issues = validate('sms', 'incoming', { text: 42 });
    expect(paths(issues)).toEqual(['text', 'userId']);
    expect(issues[0]).toMatchObject({ expected: 'a string', received: 'number' });
    expect(issues[1]).toMatchObject({ received: 'missing' });
  });

  it('refuses an empty userId', () => {
    expect(paths(validate('sms', 'incoming', { text: 'x', userId: '' }))).toEqual(['userId']);
  });

  it('refuses an intent without name or inputs', () => {
    const issues = validate('universal', 'incoming', { text: 'x', userId: 'u', intent: {} });
    expect(paths(issues)).toEqual(['intent.name', 'intent.inputs']);
  });

  it('refuses an input value that is not a string, with its index in the path', () => {
    const issues = validate('universal', 'incoming', {
      text: 'x',
      userId: 'u',
      intent: { name: 'I', inputs: [{ name: 'a', value: 'ok' }, { name: 'b', value: 3 }] },
    });
    expect(issues).toEqual([{ path: 'intent.inputs[1].value', expected: 'a string', received: 'number' }]);
  });

  it('refuses malformed images, buttons, postback and platformJson', () => {
    const issues = validate('sms', 'outgoing', {
      text: 'x',
      userId: 'u',
      images: [{}],
      buttons: [{ id: 'b', label: 'L' }],
      postback: { buttonClick: {} },
      platformJson: [],
    });
    expect(paths(issues)).toEqual(['images[0].url', 'buttons[0].value', 'postback.buttonClick.buttonId', 'platformJson']);
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, 'text', 7, [], undefined]) {
      expect(validate('sms', 'incoming', body)[0].path).toBe('(root)');
    }
  });

  it('says what it found by type, never echoing content', () => {
    const [issue] = validate('sms', 'incoming', { text: { secret: 'do not echo me' }, userId: 'u' });
    expect(JSON.stringify(issue)).not.toContain('do not echo me');
  });
});

describe('messenger payloads', () => {
  it('accepts the webhook payload with an intent on each message', () => {
    expect(validate('messenger', 'incoming', messengerIncoming)).toEqual([]);
  });

  it('accepts rich media without text', () => {
    const payload = structuredClone(messengerIncoming);
    payload.entry[0].messaging[0].message = { mid: 'm', attachments: [{ type: 'image' }] } as never;
    expect(validate('messenger', 'incoming', payload)).toEqual([]);
  });

  it('refuses an incoming payload with a bad entry, naming the nested path', () => {
    const payload = structuredClone(messengerIncoming) as any;
    payload.entry[0].time = 'yesterday';
    delete payload.entry[0].messaging[0].sender;
    payload.entry[0].messaging[0].intent = { name: 'X' };
    expect(paths(validate('messenger', 'incoming', payload))).toEqual([
      'entry[0].time',
      'entry[0].messaging[0].sender',
      'entry[0].messaging[0].intent.inputs',
    ]);
  });

  it('refuses an incoming payload with no entries', () => {
    expect(paths(validate('messenger', 'incoming', { object: 'page', entry: [] }))).toEqual(['entry']);
  });

  it('accepts the outgoing payload with qs, uri, json, method, responseBody and intent', () => {
    expect(validate('messenger', 'outgoing', messengerOutgoing)).toEqual([]);
  });

  it('refuses an outgoing payload without a recipient', () => {
    const payload = { ...messengerOutgoing, json: { message: { text: 'x' } } };
    expect(paths(validate('messenger', 'outgoing', payload))).toEqual(['json.recipient']);
  });
});

describe('events', () => {
  const base = { name: 'e', userId: 'u', conversationId: 'c' };

  it('accepts each of the four types with its properties', () => {
    expect(validate('directMessage', 'event', { ...base, type: 'customEvent', extraInfo: { a: 1 } })).toEqual([]);
    expect(validate('directMessage', 'event', { ...base, type: 'revenueEvent', amount: 12.5, referenceNumber: 'r', metadata: {} })).toEqual([]);
    expect(validate('messenger', 'event', { ...base, type: 'shareEvent', sharedMessage: { text: 't' } })).toEqual([]);
    expect(validate('directMessage', 'event', { ...base, type: 'pageLaunchEvent', extraInfo: { url: 'u' } })).toEqual([]);
  });

  it('refuses a revenueEvent whose amount is not a finite number', () => {
    for (const amount of ['12', NaN, Infinity, undefined]) {
      expect(paths(validate('directMessage', 'event', { ...base, type: 'revenueEvent', amount }))).toEqual(['amount']);
    }
  });

  it('refuses an unknown event type, listing the allowed ones', () => {
    const [issue] = validate('directMessage', 'event', { ...base, type: 'purchase' });
    expect(issue.path).toBe('type');
    expect(issue.expected).toContain('"revenueEvent"');
  });

  it('accepts referralEvent only when asked to', () => {
    const referral = { ...base, type: 'referralEvent', ref: 'r', source: 'ADS', adid: 'a', refereruri: 'https://x' };
    expect(paths(validate('directMessage', 'event', referral))).toEqual(['type']);
    expect(validate('directMessage', 'event', referral, { allowReferralEvent: true })).toEqual([]);
  });

  it('refuses an event without name or userId', () => {
    expect(paths(validate('directMessage', 'event', { type: 'customEvent' }))).toEqual(['name', 'userId']);
  });
});

describe('platforms, versions and the URL', () => {
  it('uses 10.1.1-rest for universal messages and 11.1.0-rest for everything else', () => {
    expect(versionFor('universal', 'incoming')).toBe('10.1.1-rest');
    expect(versionFor('universal', 'outgoing')).toBe('10.1.1-rest');
    expect(versionFor('universal', 'event')).toBe('11.1.0-rest');
    for (const kind of ['sms', 'directMessage', 'messenger'] as const) {
      expect(versionFor(kind, 'incoming')).toBe('11.1.0-rest');
      expect(versionFor(kind, 'event')).toBe('11.1.0-rest');
    }
  });

  it('maps platform kinds to wire values, configurable for the two placeholder platforms', () => {
    expect(platformValue('directMessage')).toBe('twitter');
    expect(platformValue('messenger')).toBe('facebook');
    expect(platformValue('messenger', { directMessage: 'x', messenger: 'fb' })).toBe('fb');
    expect(platformKind('twitter')).toBe('directMessage');
    expect(platformKind('slack')).toBeUndefined();
  });

  it('puts shareEvent on the messenger platform and other events on the direct-message platform', () => {
    expect(defaultEventPlatform('shareEvent')).toBe('messenger');
    expect(defaultEventPlatform('revenueEvent')).toBe('directMessage');
  });

  it('builds {baseUrl}/track with the four query parameters, keeping a base path', () => {
    const url = new URL(trackUrl('https://host.test/api/', { platform: 'sms', v: '11.1.0-rest', type: 'incoming', apiKey: 'k&y' }));
    expect(url.pathname).toBe('/api/track');
    expect(Object.fromEntries(url.searchParams)).toEqual({ platform: 'sms', v: '11.1.0-rest', type: 'incoming', apiKey: 'k&y' });
  });

  it('treats placeholders as invalid API keys', () => {
    for (const key of ['<API_KEY>', '{api_key}', '$TRACKING_API_KEY', '', '  ']) {
      expect(checkApiKey(key)).toHaveLength(1);
    }
    expect(checkApiKey('a1b2c3d4')).toEqual([]);
  });
});
