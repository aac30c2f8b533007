/**
 * What every view can be narrowed to: a bot, a platform, a channel, an intent, a time range. The
 * read API parses it from the query string (api/params.ts); the queries apply it to whichever
 * table they read.
 */

/** Narrows a view. Every field is optional; times are epoch milliseconds, `to` exclusive. */
export interface ReadFilter {
  /** A bot: the fingerprint of its key (`bot` of a stored record). */
  bot?: string;
  /** A `platform` value; `(none)` for the scripted form. */
  platform?: string;
  /** A Bot Framework channel (`webchat`, `msteams`…). */
  channel?: string;
  /** An intent name (lists of users and conversations only). */
  intent?: string;
  /** From this time on (when it happened). */
  from?: number;
  /** Before this time. */
  to?: number;
}

/** The platform value as stored: the scripted form has none (`''`). */
export function storedPlatform(platform: string): string {
  return platform === '(none)' ? '' : platform;
}

/** The platform value as shown: `(none)` for the scripted form. */
export function shownPlatform(platform: string): string {
  return platform === '' ? '(none)' : platform;
}

/** `''` (none) as `null`, for JSON answers. */
export function orNull(value: string): string | null {
  return value === '' ? null : value;
}

/** The intent name a bot gives a message it could not handle. */
export const NOT_HANDLED_INTENT = 'NotHandled';

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
