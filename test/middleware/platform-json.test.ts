import { Activity } from '@microsoft/agents-activity';
import { describe, expect, it } from 'vitest';
import { activityJson, jsonSafe } from '../../src/middleware/platform-json.js';

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
