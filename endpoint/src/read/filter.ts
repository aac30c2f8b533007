/**
 * What every view can be narrowed to: a bot, a platform, a channel, an intent, a time range. The
 * read API parses it from the query string (api/params.ts); the queries apply it to whichever
 * table they read.
 */

/** Narrows a view. Every field is optional; times are epoch milliseconds, `to` exclusive. */
export interface ReadFilter {
  /** A bot: the fingerprint of its key (`bot` of a stored record). */
  bot?: string;
  /**
   * The bots a reader may see (its scope): only these, whatever `bot` says; empty for none.
   * `undefined` for every bot.
   */
  bots?: readonly string[];
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

/** A bot fingerprint no key has (fingerprints are hex): what a filter that reaches no bot asks for. */
export const NO_BOT = '-';

/**
 * The bots a view reads, from the filter's `bot` and `bots`: `undefined` for every bot, else a
 * list that is never empty (a filter that reaches no bot asks for `NO_BOT`, which matches nothing).
 */
export function botsOf(filter: ReadFilter): readonly string[] | undefined {
  const { bot, bots } = filter;
  if (bots === undefined) return bot === undefined ? undefined : [bot];
  const within = bot === undefined ? bots : bots.filter((b) => b === bot);
  return within.length > 0 ? within : [NO_BOT];
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
