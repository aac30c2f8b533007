/** What an idempotency key may be (protocol/idempotency.ts): the rule the client keeps its saved keys to and the endpoint checks. */
import { describe, expect, it } from 'vitest';
import { MAX_IDEMPOTENCY_KEY, isIdempotencyKey } from '../../src/protocol/index.js';

describe('isIdempotencyKey', () => {
  it('takes 1 to 200 printable ASCII characters, a UUID among them', () => {
    expect(MAX_IDEMPOTENCY_KEY).toBe(200);
    for (const key of ['a', ' ', '~', 'x'.repeat(200), '7d444840-9dc0-11d1-b245-5ffdce74fad2', 'order 12/3: #4!']) expect(isIdempotencyKey(key), key).toBe(true);
  });

  it('refuses an empty key, one longer than 200, and any character outside space to ~', () => {
    for (const key of ['', 'x'.repeat(201), 'tab\there', 'line\n', 'é', 'del\u007f', 'nul\u0000', 'emoji 🙂']) expect(isIdempotencyKey(key), JSON.stringify(key)).toBe(false);
  });
});
