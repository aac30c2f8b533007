/**
 * A revenue event's currency, typed: `{ type: 'revenueEvent', amount: 4.2, currency: 'EUR' }`.
 * The spec gives revenue no currency field, so it is sent where the endpoint reads it,
 * `metadata.currency`, upper-cased; the event's own `currency` field is not sent.
 */
import type { RevenueEvent, TrackingEvent, ValidationIssue } from '../protocol/index.js';

/** A revenue event as the client's `logEvent` and the middleware's `trackEvent` take it: the spec's fields and a currency. */
export interface RevenueEventInput extends RevenueEvent {
  /**
   * ISO 4217 code of `amount`'s currency (`EUR`, `usd`): three letters, sent upper-cased as
   * `metadata.currency` (the spec has no field of its own). Another value is refused
   * (`TrackingValidationError`, path `currency`), as is one that differs from `metadata.currency`.
   */
  currency?: string;
}

/** An event as the client takes it: a revenue event may say its currency. */
export type TrackingEventInput = Exclude<TrackingEvent, RevenueEvent> | RevenueEventInput;

const CODE = /^[A-Za-z]{3}$/;

/**
 * `body` with a revenue event's `currency` moved to `metadata.currency` (a new object; the
 * caller's is not changed), or the problem with it. Any other body is returned as it is.
 */
export function moveCurrency(body: unknown): { body: unknown } | { issue: ValidationIssue } {
  if (typeof body !== 'object' || body === null || !Object.hasOwn(body, 'currency')) return { body };
  const { currency, ...rest } = body as Record<string, unknown>;
  if (rest.type !== 'revenueEvent') return { body };
  if (currency === undefined) return { body: rest };
  if (typeof currency !== 'string' || !CODE.test(currency)) {
    const received = typeof currency === 'string' ? JSON.stringify(currency.slice(0, 20)) : typeof currency;
    return { issue: { path: 'currency', expected: 'an ISO 4217 currency code of three letters, such as "EUR"', received } };
  }
  const code = currency.toUpperCase();
  const metadata = rest.metadata;
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
    return { issue: { path: 'metadata', expected: 'an object (it takes the currency as metadata.currency)', received: Array.isArray(metadata) ? 'an array' : typeof metadata } };
  }
  const given = (metadata as Record<string, unknown> | undefined)?.currency;
  if (given !== undefined && (typeof given !== 'string' || given.toUpperCase() !== code)) {
    return { issue: { path: 'currency', expected: `the currency metadata.currency gives (${JSON.stringify(String(given).slice(0, 20))}), or only one of the two`, received: JSON.stringify(currency) } };
  }
  return { body: { ...rest, metadata: { ...(metadata as object | undefined), currency: code } } };
}
