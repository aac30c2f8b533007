/**
 * KeyPolicy on its own (http/auth.ts), every policy built inside its test: which write keys it
 * takes, how it reads `--reader`, `--trust-proxy-user` and `--reader-user` (and the exact words
 * of each refusal, never with a token in them), and what `checkRead` answers each kind of request.
 * (read-access.test.ts checks the same through a running endpoint's every route.)
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkApiKey } from 'botbuilder-conversation-analytics/protocol';
import { KeyPolicy, OPEN_ACCESS } from '../../src/http/auth.js';
import { TrackingEndpointError } from '../../src/errors.js';

const PIZZA_KEY = 'pizza-write-key-1';
const SUPPORT_KEY = 'support-write-key-2';
const fp = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);
const NAMES = new Map([[PIZZA_KEY, 'pizza'], [SUPPORT_KEY, 'support']]);
const req = (headers: Record<string, string | string[]> = {}) => ({ headers }) as unknown as IncomingMessage;
const bearer = (token: string) => req({ authorization: `Bearer ${token}` });

function refusal(make: () => unknown): string {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(TrackingEndpointError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}
const readers = (list: string[], names: ReadonlyMap<string, string> = NAMES) => () => new KeyPolicy([PIZZA_KEY, SUPPORT_KEY], false, names, { readers: list });
const users = (list: string[], header = 'X-Forwarded-User') => () => new KeyPolicy([PIZZA_KEY], false, NAMES, { trustProxyUser: header, readerUsers: list });

describe('write keys', () => {
  it('takes a configured key, as its fingerprint; refuses another in words, naming the field', () => {
    const keys = new KeyPolicy([PIZZA_KEY], false);
    expect(keys.acceptsAnyKey).toBe(false);
    expect(keys.checkTrackingKey(PIZZA_KEY)).toEqual({ ok: true, bot: fp(PIZZA_KEY) });
    expect(keys.checkTrackingKey(PIZZA_KEY)).toEqual({ ok: true, bot: fp(PIZZA_KEY) });
    expect(keys.checkTrackingKey('another-real-key-9')).toEqual({
      ok: false, error: 'Unknown API key: use one of the keys this endpoint was started with (--key).',
      problems: [{ path: 'apiKey', expected: 'a key this endpoint accepts', received: 'an unknown key' }],
    });
  });

  it('refuses no key, or a placeholder, with what the protocol says of it; with no key configured, takes any real one', () => {
    for (const keys of [new KeyPolicy([PIZZA_KEY], false), new KeyPolicy([], true)]) {
      for (const apiKey of [null, '']) {
        const problems = checkApiKey(apiKey ?? undefined);
        expect(problems.length).toBeGreaterThan(0);
        expect(keys.checkTrackingKey(apiKey)).toEqual({ ok: false, error: 'A real API key is required in the apiKey query parameter.', problems });
      }
    }
    const open = new KeyPolicy([], true);
    expect(open.acceptsAnyKey).toBe(true);
    expect(open.checkTrackingKey('any-real-key-3')).toEqual({ ok: true, bot: fp('any-real-key-3') });
  });

  it('knows the names given to keys, both ways', () => {
    const keys = new KeyPolicy([PIZZA_KEY, SUPPORT_KEY], false, NAMES);
    expect([keys.nameOf(fp(PIZZA_KEY)), keys.nameOf(fp(SUPPORT_KEY)), keys.nameOf('0123456789ab')]).toEqual(['pizza', 'support', undefined]);
    expect([keys.botFor('pizza'), keys.botFor('support'), keys.botFor('0123456789ab')]).toEqual([fp(PIZZA_KEY), fp(SUPPORT_KEY), '0123456789ab']);
  });
});

describe('--reader', () => {
  it('refuses each bad entry in words that name the reader and what was expected, never the token', () => {
    const expected: [string[], string][] = [
      [['ana'], '--reader must be NAME=TOKEN (optionally :BOTS and :admin), the name letters, digits and _ . @ - (up to 64); got an entry without "=".'],
      [['-ana=tok-1'], '--reader must be NAME=TOKEN (optionally :BOTS and :admin), the name letters, digits and _ . @ - (up to 64); got an entry without a valid name.'],
      [['a na=tok-1'], '--reader must be NAME=TOKEN (optionally :BOTS and :admin), the name letters, digits and _ . @ - (up to 64); got an entry without a valid name.'],
      [[`${'a'.repeat(65)}=tok-1`], '--reader must be NAME=TOKEN (optionally :BOTS and :admin), the name letters, digits and _ . @ - (up to 64); got an entry without a valid name.'],
      [['ana='], '--reader "ana" has an empty token; give NAME=TOKEN with a token of its own.'],
      [['ana=  :pizza'], '--reader "ana" has an empty token; give NAME=TOKEN with a token of its own.'],
      [['ana= tok-1'], '--reader "ana": the token starts or ends with a space; give it without.'],
      [['ana=tok-1 '], '--reader "ana": the token starts or ends with a space; give it without.'],
      [['ana=tok-1', 'ana=tok-2'], '--reader "ana" is given twice; give each reader its own name.'],
      [[`ana=${SUPPORT_KEY}`], '--reader "ana": the token is one of the write keys (--key); a reader needs a token of its own, since write keys cannot read.'],
      [['ana=tok-1', 'bob=tok-1'], '--reader "bob": the token is another reader\'s; give each reader its own token.'],
      [['ana=tok-1:pizza:support:admin'], '--reader "ana": expected at most BOTS and admin after the token (as pizza,support:admin); got 3 parts.'],
      [['ana=tok-1:pizza:support'], '--reader "ana": expected at most BOTS and admin after the token (as pizza,support:admin); got 2 parts.'],
      [['ana=tok-1:pizza,pasta'], '--reader "ana": the bot "pasta" is not a name given with --key NAME=KEY (known: pizza, support); use those names, or * for every bot.'],
      [['ana=tok-1:admin:admin'], '--reader "ana": the bot "admin" is not a name given with --key NAME=KEY (known: pizza, support); use those names, or * for every bot.'],
    ];
    for (const [list, message] of expected) expect([list, refusal(readers(list))]).toEqual([list, message]);
    expect(refusal(readers(['ana=tok-1:pizza'], new Map()))).toBe('--reader "ana": the bot "pizza" is not a name given with --key NAME=KEY (no key has a name); use those names, or * for every bot.');
    expect(refusal(readers([`${'b'.repeat(80)}=tok-1`]))).not.toContain('b'.repeat(65));
    expect(refusal(readers([`ana=tok-1:${'p'.repeat(80)}`]))).toBe(`--reader "ana": the bot "${'p'.repeat(64)}" is not a name given with --key NAME=KEY (known: pizza, support); use those names, or * for every bot.`);
  });

  it('reads names (spaces around them trimmed, up to 64 characters) and scopes: every bot, some bots, the admin right', () => {
    const long = 'n'.repeat(64);
    const keys = readers([
      ' all =tok-all', 'boss=tok-boss:admin', 'star=tok-star:*:admin', 'spaced=tok-spaced: * ', 'pz=tok-pz:pizza',
      'both=tok-both:pizza, support', 'pzboss=tok-pzboss:pizza:admin', `${long}=tok-long`, 'a.b@c-d_e=tok-dots',
    ])();
    expect(keys.readerCount).toBe(9);
    expect(keys.proxyUserHeader).toBeUndefined();
    const access = (token: string) => {
      const check = keys.checkRead(bearer(token));
      if (!check.ok) throw new Error(check.error);
      return { ...check.access, bots: check.access.bots === null ? null : [...check.access.bots].sort() };
    };
    expect(access('tok-all')).toEqual({ reader: 'all', bots: null, admin: false });
    expect(access('tok-boss')).toEqual({ reader: 'boss', bots: null, admin: true });
    expect(access('tok-star')).toEqual({ reader: 'star', bots: null, admin: true });
    expect(access('tok-spaced')).toEqual({ reader: 'spaced', bots: null, admin: false });
    expect(access('tok-pz')).toEqual({ reader: 'pz', bots: [fp(PIZZA_KEY)], admin: false });
    expect(access('tok-both')).toEqual({ reader: 'both', bots: [fp(PIZZA_KEY), fp(SUPPORT_KEY)].sort(), admin: false });
    expect(access('tok-pzboss')).toEqual({ reader: 'pzboss', bots: [fp(PIZZA_KEY)], admin: true });
    expect(access('tok-long')).toEqual({ reader: long, bots: null, admin: false });
    expect(access('tok-dots')).toEqual({ reader: 'a.b@c-d_e', bots: null, admin: false });
  });
});

describe('--trust-proxy-user and --reader-user', () => {
  it('refuse a header that is not a header name, a bad or repeated user, and users without the header', () => {
    expect(refusal(users([], 'X Forwarded User'))).toBe('--trust-proxy-user must be a header name (such as X-Forwarded-User); got "X Forwarded User".');
    expect(refusal(users([], `X-${'h'.repeat(60)} x`))).toBe(`--trust-proxy-user must be a header name (such as X-Forwarded-User); got "X-${'h'.repeat(38)}".`);
    expect(refusal(users(['ann smith']))).toBe('--reader-user "ann smith": the user name must be letters, digits and _ . @ - (up to 64); use NAME[:BOTS][:admin].');
    expect(refusal(users([`${'u'.repeat(70)} x`]))).toBe(`--reader-user "${'u'.repeat(60)}": the user name must be letters, digits and _ . @ - (up to 64); use NAME[:BOTS][:admin].`);
    expect(refusal(users(['ann', 'ann:pizza']))).toBe('--reader-user: the user "ann" is given twice; give each user one line.');
    expect(refusal(users(['ann:pasta']))).toBe('--reader-user ann: the bot "pasta" is not a name given with --key NAME=KEY (known: pizza, support); use those names, or * for every bot.');
    expect(refusal(() => new KeyPolicy([PIZZA_KEY], false, NAMES, { readerUsers: ['ann'] }))).toBe('--reader-user needs --trust-proxy-user HEADER: the header the auth proxy names the user in.');
    expect(new KeyPolicy([], false, new Map(), { trustProxyUser: '  X-User  ' }).proxyUserHeader).toBe('x-user');
  });

  it('give the named user their scope; no user is a 401, a user not listed a 403, whatever token comes with it', () => {
    const keys = new KeyPolicy([PIZZA_KEY], false, NAMES, { readers: ['tok=reader-token-1'], trustProxyUser: 'X-Forwarded-User', readerUsers: ['  ann:pizza  ', 'bob', 'dpo@example.com:*:admin'] });
    expect(keys.readerCount).toBe(4);
    expect(keys.proxyUserHeader).toBe('x-forwarded-user');
    const noUser = { ok: false, status: 401, error: 'Reading needs signing in through the auth proxy (it sets x-forwarded-user); this request has no user.' };
    expect(keys.checkRead(req())).toEqual(noUser);
    expect(keys.checkRead(req({ 'x-forwarded-user': '   ' }))).toEqual(noUser);
    expect(keys.checkRead(req({ authorization: 'Bearer reader-token-1' }))).toEqual(noUser);
    expect(keys.checkRead(req({ 'x-forwarded-user': 'mallory' }))).toEqual({ ok: false, status: 403, error: 'The signed-in user has no read access here (--reader-user).' });
    expect(keys.checkRead(req({ 'x-forwarded-user': ' ann ' }))).toEqual({ ok: true, access: { reader: 'ann', bots: new Set([fp(PIZZA_KEY)]), admin: false } });
    expect(keys.checkRead(req({ 'x-forwarded-user': ['bob', 'ann'] }))).toEqual({ ok: true, access: { reader: 'bob', bots: null, admin: false } });
    expect(keys.checkRead(req({ 'x-forwarded-user': 'dpo@example.com' }))).toEqual({ ok: true, access: { reader: 'dpo@example.com', bots: null, admin: true } });
  });
});

describe('checkRead with reader tokens', () => {
  const GENERIC = { ok: false, status: 401, error: 'Reading needs a reader token, as an Authorization: Bearer <token> header (the endpoint\'s readers are given with --reader NAME=TOKEN).' };
  const WRITE_KEY = { ok: false, status: 401, error: 'Reading needs a reader token (--reader NAME=TOKEN), as Authorization: Bearer <token>; write keys (--key) cannot read.' };

  it('off loopback: the reader whose token it is (spaces around it ignored); a write key, another scheme, no token or a wrong one: 401, saying which', () => {
    const keys = readers(['ana=tok-ana:pizza', 'bob=tok-bob'])();
    expect(keys.checkRead(bearer('tok-ana'))).toEqual({ ok: true, access: { reader: 'ana', bots: new Set([fp(PIZZA_KEY)]), admin: false } });
    expect(keys.checkRead(bearer('tok-bob'))).toEqual({ ok: true, access: { reader: 'bob', bots: null, admin: false } });
    expect(keys.checkRead(req({ authorization: 'Bearer    tok-bob   ' }))).toEqual({ ok: true, access: { reader: 'bob', bots: null, admin: false } });
    expect(keys.checkRead(bearer(PIZZA_KEY))).toEqual(WRITE_KEY);
    expect(keys.checkRead(bearer(SUPPORT_KEY))).toEqual(WRITE_KEY);
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer tok-anax' }, { authorization: 'Bearer ' }, { authorization: 'Basic tok-ana' }, { authorization: 'Basic  tok-ana' }, { authorization: `Token ${PIZZA_KEY}` }, { authorization: 'tok-ana' }]) {
      expect([headers, keys.checkRead(req(headers))]).toEqual([headers, GENERIC]);
    }
  });

  it('off loopback with no reader: nobody reads', () => {
    const keys = new KeyPolicy([PIZZA_KEY], false);
    expect(keys.readerCount).toBe(0);
    expect(keys.checkRead(req())).toEqual(GENERIC);
    expect(keys.checkRead(bearer(PIZZA_KEY))).toEqual(WRITE_KEY);
  });

  it('on loopback: open to anyone while no reader is configured (a write key too); once one is, a token is needed', () => {
    const open = new KeyPolicy([PIZZA_KEY], true);
    for (const request of [req(), bearer(PIZZA_KEY), bearer('anything')]) {
      const check = open.checkRead(request);
      expect(check).toEqual({ ok: true, access: OPEN_ACCESS });
      expect(check.ok && check.access).toBe(OPEN_ACCESS);
    }
    expect(OPEN_ACCESS).toEqual({ reader: null, bots: null, admin: true });
    expect(Object.isFrozen(OPEN_ACCESS)).toBe(true);
    const closed = new KeyPolicy([PIZZA_KEY], true, new Map(), { readers: ['ana=tok-ana'] });
    expect(closed.checkRead(req())).toEqual(GENERIC);
    expect(closed.checkRead(bearer(PIZZA_KEY))).toEqual(WRITE_KEY);
    expect(closed.checkRead(bearer('tok-ana'))).toEqual({ ok: true, access: { reader: 'ana', bots: null, admin: false } });
  });
});
