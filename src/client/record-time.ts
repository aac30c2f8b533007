/**
 * When a record happened, in the place of its shape that the tracking endpoint reads (the spec
 * gives records no time field of their own, so these are the conventions the bundled endpoint
 * follows): a generic message's `platformJson.timestamp` (an activity's own field), a custom or
 * page-launch event's `extraInfo.timestamp`, a revenue event's `metadata.timestamp`. A share or
 * referral event and a messenger outgoing record have no such place. A time the caller already
 * gave (either event field) always wins. Never throws; a body of the wrong shape is returned as it
 * is, for validation to refuse.
 */
import type { Message, TrackingEvent } from '../protocol/index.js';

/** True for a plain object (not an array). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `holder` is an object with a `timestamp` set (neither `undefined` nor `null`). */
function hasTime(holder: unknown): boolean {
  return isPlainObject(holder) && holder.timestamp !== undefined && holder.timestamp !== null;
}

/** `holder` (an object or nothing) with `timestamp: at` added; `undefined` when it is something else. */
function withTimestamp(holder: unknown, at: string): Record<string, unknown> | undefined {
  if (holder === undefined || holder === null) return { timestamp: at };
  return isPlainObject(holder) ? { ...holder, timestamp: at } : undefined;
}

/**
 * A generic message (sms, universal, direct-message) with `platformJson.timestamp` = `at` (ISO
 * 8601) when it has no time there; the message itself when it has one, or a `platformJson` that is
 * not an object. A new object: the caller's is not changed.
 */
export function messageWithTime<T extends Message>(message: T, at: string): T {
  if (!isPlainObject(message) || hasTime(message.platformJson)) return message;
  const platformJson = withTimestamp(message.platformJson, at);
  return platformJson === undefined ? message : { ...message, platformJson };
}

/**
 * An event with the time it happened, `at` (ISO 8601): in `extraInfo.timestamp` for a custom or
 * page-launch event, in `metadata.timestamp` for a revenue event; unchanged when it has a time in
 * either field already, when that field is not an object, and for share and referral events (no
 * place for one). A new object: the caller's is not changed.
 */
export function eventWithTime<T extends TrackingEvent>(event: T, at: string): T {
  if (!isPlainObject(event)) return event;
  const body = event as Record<string, unknown>;
  if (hasTime(body.extraInfo) || hasTime(body.metadata)) return event;
  const field = body.type === 'revenueEvent' ? 'metadata' : body.type === 'customEvent' || body.type === 'pageLaunchEvent' ? 'extraInfo' : undefined;
  if (field === undefined) return event;
  const holder = withTimestamp(body[field], at);
  return holder === undefined ? event : { ...event, [field]: holder };
}
