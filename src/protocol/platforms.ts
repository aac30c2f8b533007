/**
 * Platform values, the version rule, and the tracking URL.
 */
import type { ValidationIssue } from './schema.js';
import type { ApiVersion, PlatformKind, RecordType } from './types.js';

/** The version sent with universal-platform messages. */
export const UNIVERSAL_VERSION: ApiVersion = '10.1.1-rest';
/** The version sent for sms, the direct-message and messenger platforms, and every event. */
export const DEFAULT_VERSION: ApiVersion = '11.1.0-rest';
/** Every version value the spec shows: `['11.1.0-rest', '10.1.1-rest']`. */
export const API_VERSIONS: readonly ApiVersion[] = [DEFAULT_VERSION, UNIVERSAL_VERSION];

/** True for a version value the spec shows. */
export function isApiVersion(value: unknown): value is ApiVersion {
  return (API_VERSIONS as readonly unknown[]).includes(value);
}

/** The wire values of the two platforms the spec leaves as placeholders. */
export interface PlatformNames {
  /** Lowercase platform value of the direct-message platform. Default `twitter`. */
  directMessage: string;
  /** Lowercase platform value of the messenger platform. Default `facebook`. */
  messenger: string;
}

/** The wire values of the two platforms the spec leaves as placeholders: `{ directMessage: 'twitter', messenger: 'facebook' }`. */
export const DEFAULT_PLATFORM_NAMES: PlatformNames = { directMessage: 'twitter', messenger: 'facebook' };

/** The four platform kinds of the spec. */
export const PLATFORM_KINDS: readonly PlatformKind[] = ['sms', 'universal', 'directMessage', 'messenger'];
/** The three record types of the spec (the scripted `generic` form is not one: see docs/decisions.md). */
export const RECORD_TYPES: readonly RecordType[] = ['incoming', 'outgoing', 'event'];

/** The value of the `platform` query parameter for a platform kind. */
export function platformValue(kind: PlatformKind, names: PlatformNames = DEFAULT_PLATFORM_NAMES): string {
  switch (kind) {
    case 'directMessage':
      return names.directMessage;
    case 'messenger':
      return names.messenger;
    default:
      return kind;
  }
}

/** The platform kind of a `platform` query value, or `undefined` when it is not one the spec allows. */
export function platformKind(value: string, names: PlatformNames = DEFAULT_PLATFORM_NAMES): PlatformKind | undefined {
  if (value === 'sms' || value === 'universal') return value;
  if (value === names.directMessage) return 'directMessage';
  if (value === names.messenger) return 'messenger';
  return undefined;
}

/**
 * The version rule: `10.1.1-rest` for universal-platform messages, `11.1.0-rest` for everything
 * else, events included (the spec documents every event request with `11.1.0-rest`).
 */
export function versionFor(kind: PlatformKind, type: RecordType): ApiVersion {
  return kind === 'universal' && type !== 'event' ? UNIVERSAL_VERSION : DEFAULT_VERSION;
}

/**
 * The platform an event goes on when none is given: as in the spec's examples, a shareEvent on
 * the messenger platform and every other event on the direct-message platform.
 */
export function defaultEventPlatform(eventType: string): PlatformKind {
  return eventType === 'shareEvent' ? 'messenger' : 'directMessage';
}

const PLACEHOLDER = /^\s*$|^<[^>]*>$|^\$?\{+[^{}]*\}+$|^\$[A-Z0-9_]+$/;

/**
 * True when a value is empty or a placeholder, never a valid value: `<API_KEY>`, `{api_key}`, a
 * template's `{{api_key}}` or `${{ secrets.API_KEY }}`, an environment variable's name such as
 * `$API_KEY`, `${api_key}` or `$BOT2_API_KEY`.
 */
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value) || value.includes('<API_KEY>');
}

/** Checks an API key: a non-empty string that is not a placeholder. */
export function checkApiKey(apiKey: unknown): ValidationIssue[] {
  if (typeof apiKey !== 'string' || apiKey.length === 0) {
    return [{ path: 'apiKey', expected: 'the bot\'s API key (a non-empty string)', received: apiKey === undefined ? 'missing' : 'empty or not a string' }];
  }
  if (isPlaceholder(apiKey)) {
    return [{ path: 'apiKey', expected: 'a real API key, not a placeholder such as <API_KEY>', received: 'placeholder' }];
  }
  return [];
}

/** Query parameters of one tracking request. */
export interface TrackQuery {
  platform: string;
  v: ApiVersion;
  type: RecordType;
  apiKey: string;
}

/**
 * `{baseUrl}/track?platform=…&v=…&type=…&apiKey=…`. A path in `baseUrl` is kept; a trailing slash is not doubled.
 * Throws a `TypeError` when `baseUrl` is not an absolute http(s) URL.
 */
export function trackUrl(baseUrl: string, query: TrackQuery): string {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('baseUrl must be an http: or https: URL');
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/track`;
  url.search = new URLSearchParams({ platform: query.platform, v: query.v, type: query.type, apiKey: query.apiKey }).toString();
  url.hash = '';
  return url.toString();
}
