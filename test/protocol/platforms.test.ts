import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_VERSIONS,
  checkApiKey,
  DEFAULT_PLATFORM_NAMES,
  DEFAULT_VERSION,
  defaultEventPlatform,
  isApiVersion,
  isPlaceholder,
  PLATFORM_KINDS,
  platformKind,
  platformValue,
  RECORD_TYPES,
  trackUrl,
  UNIVERSAL_VERSION,
  versionFor,
} from '../../src/protocol/index.js';

const query = { platform: 'sms', v: '11.1.0-rest', type: 'incoming', apiKey: 'key-1' } as const;

describe('platforms and record types', () => {
  it('knows the four platforms and the three record types of the spec', () => {
    expect(PLATFORM_KINDS).toEqual(['sms', 'universal', 'directMessage', 'messenger']);
    expect(RECORD_TYPES).toEqual(['incoming', 'outgoing', 'event']);
  });

  it('sends sms and universal under their own names', () => {
    expect(platformValue('sms')).toBe('sms');
    expect(platformValue('universal')).toBe('universal');
    expect(platformValue('sms', { directMessage: 'dm', messenger: 'fb' })).toBe('sms');
  });

  it('sends the direct-message and messenger platforms as twitter and facebook by default, or as configured', () => {
    expect(DEFAULT_PLATFORM_NAMES).toEqual({ directMessage: 'twitter', messenger: 'facebook' });
    expect(platformValue('directMessage')).toBe('twitter');
    expect(platformValue('messenger')).toBe('facebook');
    const names = { directMessage: 'x-dm', messenger: 'meta' };
    expect(platformValue('directMessage', names)).toBe('x-dm');
    expect(platformValue('messenger', names)).toBe('meta');
  });

  it('reads a platform query value back to its platform', () => {
    expect(platformKind('sms')).toBe('sms');
    expect(platformKind('universal')).toBe('universal');
    expect(platformKind('twitter')).toBe('directMessage');
    expect(platformKind('facebook')).toBe('messenger');
  });

  it('reads configured platform names, and no longer the defaults they replace', () => {
    const names = { directMessage: 'x-dm', messenger: 'meta' };
    expect(platformKind('x-dm', names)).toBe('directMessage');
    expect(platformKind('meta', names)).toBe('messenger');
    expect(platformKind('twitter', names)).toBeUndefined();
    expect(platformKind('facebook', names)).toBeUndefined();
    expect(platformKind('sms', names)).toBe('sms');
    expect(platformKind('universal', names)).toBe('universal');
  });

  it('refuses platform values the spec does not allow: unknown, empty, or in another case', () => {
    for (const value of ['slack', '', 'SMS', 'Universal', 'Facebook', 'directMessage', 'messenger', 'generic']) {
      expect(platformKind(value)).toBeUndefined();
    }
  });

  it('reads back every platform it sends, whatever the configured names', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PLATFORM_KINDS), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (kind, dm, messenger) => {
        fc.pre(new Set(['sms', 'universal', dm, messenger]).size === 4);
        const names = { directMessage: dm, messenger };
        expect(platformKind(platformValue(kind, names), names)).toBe(kind);
      }),
    );
  });

  it('puts a shareEvent on the messenger platform and every other event on the direct-message platform', () => {
    expect(defaultEventPlatform('shareEvent')).toBe('messenger');
    for (const type of ['customEvent', 'revenueEvent', 'pageLaunchEvent', 'referralEvent']) expect(defaultEventPlatform(type)).toBe('directMessage');
  });
});

describe('the version rule', () => {
  it('shows exactly the two versions of the spec', () => {
    expect(DEFAULT_VERSION).toBe('11.1.0-rest');
    expect(UNIVERSAL_VERSION).toBe('10.1.1-rest');
    expect([...API_VERSIONS].sort()).toEqual(['10.1.1-rest', '11.1.0-rest']);
  });

  it.each([
    ['sms', 'incoming', '11.1.0-rest'],
    ['sms', 'outgoing', '11.1.0-rest'],
    ['sms', 'event', '11.1.0-rest'],
    ['universal', 'incoming', '10.1.1-rest'],
    ['universal', 'outgoing', '10.1.1-rest'],
    ['universal', 'event', '11.1.0-rest'],
    ['directMessage', 'incoming', '11.1.0-rest'],
    ['directMessage', 'outgoing', '11.1.0-rest'],
    ['directMessage', 'event', '11.1.0-rest'],
    ['messenger', 'incoming', '11.1.0-rest'],
    ['messenger', 'outgoing', '11.1.0-rest'],
    ['messenger', 'event', '11.1.0-rest'],
  ] as const)('sends %s %s records as v=%s', (kind, type, version) => {
    expect(versionFor(kind, type)).toBe(version);
  });

  it('recognises the two shown versions and nothing else', () => {
    expect(isApiVersion('11.1.0-rest')).toBe(true);
    expect(isApiVersion('10.1.1-rest')).toBe(true);
    for (const value of ['11.1.0', '10.1.1', '12.0.0-rest', '', ' 11.1.0-rest', undefined, null, 11.1]) expect(isApiVersion(value)).toBe(false);
  });
});

describe('API keys', () => {
  it('refuses a missing key, saying it is missing', () => {
    expect(checkApiKey(undefined)).toEqual([{ path: 'apiKey', expected: "the bot's API key (a non-empty string)", received: 'missing' }]);
  });

  it('refuses an empty key or one that is not a string, saying so', () => {
    for (const key of ['', 42, null, {}, ['key']]) {
      expect(checkApiKey(key)).toEqual([{ path: 'apiKey', expected: "the bot's API key (a non-empty string)", received: 'empty or not a string' }]);
    }
  });

  it.each([
    '<API_KEY>', '<YOUR_API_KEY>', '<your key here>', '<>', '{api_key}', '{API_KEY}', '{}', '{{api_key}}', '{{ apiKey }}',
    '${{ secrets.TRACKING_API_KEY }}', '$TRACKING_API_KEY', '${TRACKING_API_KEY}', '${api_key}', '$API_KEY', '$BOT2_API_KEY',
    '   ', '\t', 'key=<API_KEY>',
  ])(
    'refuses the placeholder %j, saying it is one',
    (key) => {
      expect(isPlaceholder(key)).toBe(true);
      expect(checkApiKey(key)).toEqual([{ path: 'apiKey', expected: 'a real API key, not a placeholder such as <API_KEY>', received: 'placeholder' }]);
    },
  );

  it('counts the empty string as a placeholder', () => {
    expect(isPlaceholder('')).toBe(true);
  });

  it.each([
    'a1b2c3d4', 'sk_live_0123456789', 'key<v2>', '<v2>key', 'key{v2}', '{v2}key', '{a}b{c}', 'key{{v2}}', '{{v2}}key', 'pa$SWORD',
    '$KEYabc', '${KEY}abc', 'x $API_KEY', '$lowercase', '$', 'a$B',
  ])(
    'accepts the real key %j, which only contains brackets, braces or a dollar sign',
    (key) => {
      expect(isPlaceholder(key)).toBe(false);
      expect(checkApiKey(key)).toEqual([]);
    },
  );

  it('accepts any key of letters, digits, dashes and underscores', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), (key) => {
        expect(checkApiKey(key)).toEqual([]);
      }),
    );
  });
});

describe('the tracking URL', () => {
  const build = (base: string) => new URL(trackUrl(base, query));

  it('puts the four query parameters on {baseUrl}/track, encoded', () => {
    const url = new URL(trackUrl('https://host.test', { platform: 'facebook', v: '10.1.1-rest', type: 'event', apiKey: 'a b&c=d' }));
    expect(url.origin + url.pathname).toBe('https://host.test/track');
    expect(Object.fromEntries(url.searchParams)).toEqual({ platform: 'facebook', v: '10.1.1-rest', type: 'event', apiKey: 'a b&c=d' });
  });

  it('keeps a base path, with or without trailing slashes, and never doubles one', () => {
    expect(build('https://host.test/api').pathname).toBe('/api/track');
    expect(build('https://host.test/api/').pathname).toBe('/api/track');
    expect(build('https://host.test/api//').pathname).toBe('/api/track');
    expect(build('https://host.test/a/b/c/').pathname).toBe('/a/b/c/track');
    expect(build('https://host.test/').pathname).toBe('/track');
  });

  it('replaces a query and drops a fragment the base URL carried', () => {
    const url = trackUrl('http://localhost:3000/x?old=1#frag', query);
    expect(url).toBe('http://localhost:3000/x/track?platform=sms&v=11.1.0-rest&type=incoming&apiKey=key-1');
  });

  it('accepts http and https base URLs', () => {
    expect(trackUrl('http://127.0.0.1:8080', query)).toMatch(/^http:\/\/127\.0\.0\.1:8080\/track\?/);
    expect(trackUrl('https://host.test', query)).toMatch(/^https:\/\/host\.test\/track\?/);
  });

  it('refuses a base URL of another scheme with a TypeError saying what it must be', () => {
    for (const base of ['ftp://host.test', 'file:///tmp/x', 'ws://host.test']) {
      expect(() => trackUrl(base, query)).toThrow(new TypeError('baseUrl must be an http: or https: URL'));
    }
  });

  it('refuses a base URL that is not absolute with a TypeError', () => {
    expect(() => trackUrl('/relative', query)).toThrow(TypeError);
  });
});
