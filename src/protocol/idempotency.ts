/**
 * The `Idempotency-Key` header (not in the spec, which lets a request carry headers it does not
 * list): a client sends one per record, the same on every attempt, and the endpoint stores a
 * record once per (bot, key). What a key may be is the contract between the two: 1 to
 * `MAX_IDEMPOTENCY_KEY` printable ASCII characters (the client's are UUIDs, 36 characters).
 */

/** The longest key taken. */
export const MAX_IDEMPOTENCY_KEY = 200;

const KEY = new RegExp(`^[\\x20-\\x7e]{1,${MAX_IDEMPOTENCY_KEY}}$`);

/** Whether `value` is a key the endpoint takes: 1 to 200 printable ASCII characters (space to `~`). */
export function isIdempotencyKey(value: string): boolean {
  return KEY.test(value);
}
