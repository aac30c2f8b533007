import { Activity } from '@microsoft/agents-activity';
import { describe, expect, it } from 'vitest';
import { activityJson, isoString, jsonSafe, jsonSafeObject, redactUrlSecrets } from '../../src/middleware/platform-json.js';

describe('jsonSafe', () => {
  it('turns Dates into ISO strings, BigInts into strings, binary data into a marker, and drops functions and undefined', () => {
    const value = { at: new Date('2024-05-01T10:00:00.000Z'), big: 12n, bytes: Buffer.from('abc'), fn: () => 1, missing: undefined, list: [1, undefined, () => 2] };
    expect(jsonSafe(value)).toEqual({ at: '2024-05-01T10:00:00.000Z', big: '12', bytes: '[binary 3 bytes]', list: [1, null, null] });
  });

  it('replaces cycles but keeps an object shared by two branches', () => {
    const shared = { name: 'x' };
    const value: Record<string, unknown> = { a: shared, b: shared };
    value.loop = value;
    expect(jsonSafe(value)).toEqual({ a: { name: 'x' }, b: { name: 'x' }, loop: '[Circular]' });
  });

  it('skips a getter that throws instead of failing', () => {
    const value = Object.defineProperty({ ok: 1 }, 'bad', {
      enumerable: true,
      get() {
        throw new Error('nope');
      },
    });
    expect(jsonSafe(value)).toEqual({ ok: 1 });
  });

  it('drops secret keys at any depth and masks secret URL parameters', () => {
    const value = { auth: { Authorization: 'Bearer abc', refresh_token: 'r', keep: 1 }, url: 'https://blob.example/f.png?sv=2020&sig=SECRETSIG', apiKey: 'k' };
    expect(jsonSafe(value)).toEqual({ auth: { keep: 1 }, url: 'https://blob.example/f.png?sv=2020&sig=***' });
  });

  it('cuts very long strings and very deep nesting', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 40; i++) deep = (deep.next = {}) as Record<string, unknown>;
    const out = jsonSafe({ long: 'x'.repeat(40_000), root }) as any;
    expect(out.long.length).toBeLessThan(33_000);
    expect(out.long).toMatch(/…\[truncated 7232 chars\]$/);
    expect(JSON.stringify(out)).toContain('[Truncated]');
  });

  it("copies the Agents SDK's Activity class with its public fields: channelId, never the private _channelId", () => {
    const activity = Activity.fromObject({ type: 'message', text: 'hi', channelId: 'msteams', from: { id: 'u1' } });
    const out = jsonSafe(activity) as Record<string, unknown>;
    expect(out.channelId).toBe('msteams');
    expect(out).not.toHaveProperty('_channelId');
    expect(out).toMatchObject({ type: 'message', text: 'hi', from: { id: 'u1' } });
  });

  it('keeps an underscore field of a plain object, and of a class without a getter of that name', () => {
    class Holder {
      _note = 'kept';
    }
    expect(jsonSafe({ _channelId: 'x' })).toEqual({ _channelId: 'x' });
    expect(jsonSafe(new Holder())).toEqual({ _note: 'kept' });
  });

  it('an Agents SDK Activity with a sub-channel (a ProductInfo entity) keeps the channelId the channel sent, not the composite getter', () => {
    const sent = { type: 'message', text: 'hi', channelId: 'msteams', entities: [{ type: 'ProductInfo', id: 'COPILOT' }], from: { id: 'u1' } };
    const activity = Activity.fromObject(sent);
    expect(activity.channelId).toBe('msteams:COPILOT'); // what the SDK answers in memory
    expect(jsonSafe(activity)).toEqual(sent);
    expect(jsonSafe(activity)).toEqual(JSON.parse(activity.toJsonString()));
  });
});

describe('activityJson', () => {
  it("names relatesTo's bot as the wire does (the Agents SDK renames it agent in memory)", () => {
    // The SDK's CloudAdapter renames relatesTo.bot to agent before it builds the Activity.
    const activity = Activity.fromObject({ type: 'message', channelId: 'webchat', relatesTo: { agent: { id: 'b1' }, conversation: { id: 'c1' }, channelId: 'webchat', serviceUrl: 'https://x.example/' } });
    expect(activityJson(activity)).toMatchObject({ channelId: 'webchat', relatesTo: { bot: { id: 'b1' }, conversation: { id: 'c1' } } });
    expect(activityJson(activity)?.relatesTo).not.toHaveProperty('agent');
    expect(activityJson('not an activity')).toBeUndefined();
  });
});

describe('what platformJson keeps of odd values', () => {
  it('writes timestamps exactly as toISOString does, for every kind of date an activity carries', () => {
    const dates = [0, 1, 999, 86_399_999, 951_782_400_000 /* 2000-02-29 */, 1_709_164_800_000 /* 2024-02-29 */, 4_107_542_399_999 /* 2100-02-28 end */, 4_107_542_400_000, 253_402_300_799_999, -1, -62_135_596_800_000, 253_402_300_800_000, 1_714_557_600_123, 1_735_689_599_010];
    for (const ms of dates) expect(isoString(new Date(ms))).toBe(new Date(ms).toISOString());
    for (let ms = 0; ms < 4e12; ms += 37_123_456_789) expect(isoString(new Date(ms))).toBe(new Date(ms).toISOString());
    expect(jsonSafe({ at: new Date(Number.NaN) })).toEqual({ at: null });
  });

  it('masks user names, passwords and secret parameters in http(s) URLs only, and leaves other URLs and strings as they are', () => {
    expect(redactUrlSecrets('https://user:pw@host.example/p')).toBe('https://host.example/p');
    expect(redactUrlSecrets('HTTP://user@host.example/p')).toBe('http://host.example/p');
    expect(redactUrlSecrets('https://host.example/p?code=1&page=2')).toBe('https://host.example/p?code=***&page=2');
    expect(redactUrlSecrets('https://host.example/p?my_token=1')).toBe('https://host.example/p?my_token=***');
    // Nothing to mask: the very same string (not re-written by URL).
    expect(redactUrlSecrets('https://host.example/a b?page=2')).toBe('https://host.example/a b?page=2');
    expect(redactUrlSecrets('https://host.example/a b')).toBe('https://host.example/a b');
    expect(redactUrlSecrets('https://[bad@')).toBe('https://[bad@');
    expect(redactUrlSecrets('ftp://user:pw@host.example/?token=1')).toBe('ftp://user:pw@host.example/?token=1');
    expect(redactUrlSecrets('see https://user:pw@host.example/')).toBe('see https://user:pw@host.example/');
    expect(redactUrlSecrets('')).toBe('');
    expect(jsonSafe({ link: 'https://u:p@host.example/', other: 'mailto:x@y.example?token=1' })).toEqual({ link: 'https://host.example/', other: 'mailto:x@y.example?token=1' });
  });

  it('numbers that JSON cannot hold become null; booleans, null and nested arrays are kept', () => {
    expect(jsonSafe({ a: Number.NaN, b: Number.POSITIVE_INFINITY, c: -0.5, d: false, e: true, f: null, g: [[1, [2]]] })).toEqual({ a: null, b: null, c: -0.5, d: false, e: true, f: null, g: [[1, [2]]] });
    expect(jsonSafe(Symbol('s'))).toBeUndefined();
    expect(jsonSafe({ s: Symbol('s') })).toEqual({});
  });

  it('Maps become objects, Sets arrays, errors their name and message, and a toJSON is used', () => {
    const value = { map: new Map<string, unknown>([['a', 1], ['password', 'x']]), set: new Set([1, 'two']), error: new TypeError('bad input'), custom: { toJSON: () => ({ shown: true }) }, buffer: new ArrayBuffer(4), view: new Uint8Array(2) };
    expect(jsonSafe(value)).toEqual({ map: { a: 1 }, set: [1, 'two'], error: { name: 'TypeError', message: 'bad input' }, custom: { shown: true }, buffer: '[binary 4 bytes]', view: '[binary 2 bytes]' });
  });

  it('an object without a prototype is copied, and a __proto__ key never is', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.kept = 1;
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "ok": 2}') as Record<string, unknown>;
    expect(jsonSafe({ bare, hostile })).toEqual({ bare: { kept: 1 }, hostile: { ok: 2 } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a string of exactly 32 KiB is kept whole; one character more is cut', () => {
    expect((jsonSafe('x'.repeat(32 * 1024)) as string).length).toBe(32 * 1024);
    expect(jsonSafe('x'.repeat(32 * 1024 + 1))).toBe(`${'x'.repeat(32 * 1024)}…[truncated 1 chars]`);
  });

  it('nesting is kept down to 24 levels and cut below', () => {
    const nest = (depth: number): unknown => (depth === 0 ? 'leaf' : { n: nest(depth - 1) });
    const text = (value: unknown) => JSON.stringify(jsonSafe(value));
    expect(text(nest(24))).toContain('leaf');
    expect(text(nest(25))).not.toContain('leaf');
    expect(text(nest(25))).toContain('[Truncated]');
  });

  it('jsonSafeObject gives a copy only for an object, and jsonSafe never throws', () => {
    expect(jsonSafeObject([1])).toBeUndefined();
    expect(jsonSafeObject('x')).toBeUndefined();
    expect(jsonSafeObject({ a: 1 })).toEqual({ a: 1 });
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    expect(jsonSafe(revoked.proxy)).toBeUndefined();
  });

  it('activityJson keeps relatesTo as it is when it already names the bot, or names no agent', () => {
    expect(activityJson({ relatesTo: { bot: { id: 'b' }, agent: { id: 'a' } } })?.relatesTo).toEqual({ bot: { id: 'b' }, agent: { id: 'a' } });
    expect(activityJson({ relatesTo: { conversation: { id: 'c' } } })?.relatesTo).toEqual({ conversation: { id: 'c' } });
    expect(activityJson({ relatesTo: 'x' })?.relatesTo).toBe('x');
  });
});

describe('what platformJson keeps, at the edges of its rules', () => {
  it('masks a password given without a user name, and leaves a string that only contains an http URL further on as it is', () => {
    expect(redactUrlSecrets('https://:pw@host.example/p')).toBe('https://host.example/p');
    // Starts with h, and holds "https://" later: not an http(s) URL, so nothing in it is touched.
    expect(redactUrlSecrets('hhttps://user:pw@host.example/?token=1')).toBe('hhttps://user:pw@host.example/?token=1');
    expect(redactUrlSecrets('hello://user:pw@host.example/?token=1')).toBe('hello://user:pw@host.example/?token=1');
    expect(jsonSafe({ link: 'hhttps://user:pw@host.example/' })).toEqual({ link: 'hhttps://user:pw@host.example/' });
  });

  it('an http URL of exactly 32 KiB is kept whole (its secrets masked); one character more is cut', () => {
    const url = (length: number) => { const head = 'https://host.example/?token=1&p='; return head + 'x'.repeat(length - head.length); };
    const masked = (jsonSafe(url(32 * 1024)) as string);
    expect(masked).toBe(url(32 * 1024).replace('token=1', 'token=***'));
    const cut = jsonSafe(url(32 * 1024 + 1)) as string;
    expect(cut).toContain('truncated'); // percent-encoded, as the rest of the masked URL's query
    expect(cut).not.toContain('token=1');
    expect(cut).not.toContain('x'.repeat(32 * 1024 - 31)); // every x of the input: one was cut
  });

  it('writes milliseconds with three digits, 100 and over included', () => {
    for (const ms of [1_714_557_600_001, 1_714_557_600_010, 1_714_557_600_099, 1_714_557_600_100, 1_714_557_600_999]) {
      expect(isoString(new Date(ms))).toBe(new Date(ms).toISOString());
    }
  });

  it('renames only an underscore field behind a getter of its name; a field beside a method, or beside an own field of that name, keeps its underscore', () => {
    class WithMethod {
      _run = 'field';
      run(): string { return 'method'; }
    }
    class WithGetter {
      _kind = 'private';
      get kind(): string { return 'getter'; }
    }
    const both = new WithGetter() as WithGetter & { kind?: string };
    Object.defineProperty(both, 'kind', { value: 'own', enumerable: true });
    class Prefixed {
      xkind = 'not private';
      get kind(): string { return 'getter'; }
    }
    class Short {
      _k = 'private';
      get k(): string { return 'getter'; }
    }
    expect(jsonSafe(new WithMethod())).toStrictEqual({ _run: 'field' });
    expect(jsonSafe(new WithGetter())).toStrictEqual({ kind: 'private' });
    expect(jsonSafe(both)).toStrictEqual({ _kind: 'private', kind: 'own' });
    expect(jsonSafe(new Prefixed())).toStrictEqual({ xkind: 'not private' });
    expect(jsonSafe(new Short())).toStrictEqual({ k: 'private' });
  });

  it('copies an object whose prototype chain ends without Object.prototype, and keeps a field named ___proto__', () => {
    const base = Object.create(null) as object;
    const odd = Object.create(base) as Record<string, unknown>;
    odd._x = 1;
    expect(jsonSafe({ odd })).toStrictEqual({ odd: { _x: 1 } });
    class Holder {
      ___proto__ = 'kept';
    }
    expect(jsonSafe(new Holder())).toStrictEqual({ ___proto__: 'kept' });
  });

  it('cuts nesting at 24 levels through arrays and through toJSON too', () => {
    const arrays = (depth: number): unknown => (depth === 0 ? 'leaf' : [arrays(depth - 1)]);
    const viaToJSON = (depth: number): unknown => (depth === 0 ? 'leaf' : { toJSON: () => viaToJSON(depth - 1) });
    expect(JSON.stringify(jsonSafe(arrays(24)))).toContain('leaf');
    expect(JSON.stringify(jsonSafe(arrays(40)))).not.toContain('leaf');
    expect(JSON.stringify(jsonSafe(viaToJSON(24)))).toContain('leaf');
    expect(JSON.stringify(jsonSafe(viaToJSON(40)))).toContain('[Truncated]');
  });

  it('leaves out a key whose value JSON cannot hold, and a __proto__ key never becomes the copy\'s prototype', () => {
    const out = jsonSafe({ fn: () => 1, gone: undefined, kept: 1 }) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['kept']);
    const hostile = jsonSafe(JSON.parse('{"__proto__": {"polluted": true}, "ok": 2}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
    expect(hostile.polluted).toBeUndefined();
    const empty = jsonSafe(JSON.parse('{"": 1}')) as Record<string, unknown>;
    expect(empty).toStrictEqual({ '': 1 });
  });

  it('activityJson adds no bot to a relatesTo that names neither bot nor agent', () => {
    expect(Object.keys(activityJson({ relatesTo: { conversation: { id: 'c' } } })?.relatesTo as object)).toEqual(['conversation']);
  });
});
