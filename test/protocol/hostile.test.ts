import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_KINDS, RECORD_TYPES, validate } from '../../src/protocol/index.js';
import { TrackingClient, TrackingDeliveryError, TrackingValidationError } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

const kinds = fc.constantFrom(...PLATFORM_KINDS);
const types = fc.constantFrom(...RECORD_TYPES);

/** JSON-ish values with the usual hostile suspects mixed in. */
const hostile = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    fc.string({ maxLength: 5 }).map((s) => s.repeat(20_000)),
    fc.constantFrom(NaN, Infinity, -0, null, undefined, true, 0n as unknown, Symbol('s') as unknown),
    tie('object'),
    fc.array(tie('value'), { maxLength: 4 }),
  ),
  object: fc.dictionary(
    fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'text', 'userId', 'intent', 'entry', 'json', 'type', 'amount'), fc.string({ maxLength: 8 })),
    tie('value'),
    { maxKeys: 6 },
  ),
})).value;

function deep(levels: number): unknown {
  let value: unknown = { text: 'x', userId: 'u' };
  for (let i = 0; i < levels; i++) value = { platformJson: value, intent: { name: 'n', inputs: [value] } };
  return value;
}

describe('validate() against hostile input', () => {
  it('always returns a list of issues and never throws, whatever the body', () => {
    fc.assert(
      fc.property(kinds, types, hostile, (kind, type, body) => {
        const issues = validate(kind, type, body);
        expect(Array.isArray(issues)).toBe(true);
        for (const issue of issues) expect(typeof issue.path).toBe('string');
      }),
      { numRuns: 2_000 },
    );
  });

  it('never pollutes Object.prototype through __proto__ or constructor keys', () => {
    fc.assert(
      fc.property(kinds, types, fc.jsonValue(), (kind, type, value) => {
        const body = JSON.parse(`{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"x":${JSON.stringify(value) ?? 'null'}}`);
        validate(kind, type, body);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('handles cycles and very deep nesting', () => {
    const cyclic: Record<string, unknown> = { text: 't', userId: 'u' };
    cyclic.platformJson = cyclic;
    expect(validate('sms', 'incoming', cyclic)).toEqual([]);
    expect(() => validate('universal', 'incoming', deep(5_000))).not.toThrow();
  });
});

describe('the client against hostile input', () => {
  let sink: Sink;
  let client: TrackingClient;

  beforeAll(async () => {
    sink = await startSink();
    client = new TrackingClient({ apiKey: 'hostile-key-1', baseUrl: sink.url, logger: false, maxQueueSize: 100_000 });
  });

  afterAll(async () => {
    await client.close();
    await sink.close();
  });

  it('never throws synchronously and settles every call as delivered or with a typed error', async () => {
    const outcomes: Promise<unknown>[] = [];
    fc.assert(
      fc.property(kinds, types, hostile, (kind, type, body) => {
        const p = client.track(kind, type, body);
        outcomes.push(p.then(() => 'ok', (e) => (e instanceof TrackingValidationError || e instanceof TrackingDeliveryError ? 'typed' : e)));
      }),
      { numRuns: 500 },
    );
    const results = await Promise.all(outcomes);
    expect(results.filter((r) => r !== 'ok' && r !== 'typed')).toEqual([]);
    await client.flush();
    // Whatever was accepted was valid JSON when it reached the endpoint.
    for (const request of sink.requests) expect(request.body).not.toBeUndefined();
  });

  it('refuses circular platformJson with a validation error', async () => {
    const platformJson: Record<string, unknown> = {};
    platformJson.loop = { back: platformJson };
    await expect(client.universal.logIncoming({ text: 'x', userId: 'u', platformJson })).rejects.toBeInstanceOf(TrackingValidationError);
  });
});
