/**
 * Checks the query string of `POST /track`: `platform`, `v` and `type` (the key is checked
 * separately). Reports every problem, each with the parameter's name as its path.
 */
import {
  API_VERSIONS, isApiVersion, platformKind, versionFor, type PlatformKind, type PlatformNames, type RecordType, type ValidationIssue,
} from 'botbuilder-conversation-analytics/protocol';
import type { StoredRecordType } from '../types.js';
import { isClientVersion } from '../store/client-version.js';

/** What a valid query says about the record. */
export interface TrackTarget {
  /** The `platform` value; `null` when the scripted form omits it. */
  platform: string | null;
  kind: PlatformKind | null;
  /** The `v` value as sent: a spec version, or (unless `strictVersions`) a client version such as `12.1.0-npm`. */
  v: string | null;
  /** `v` is a client version the spec does not list (accepted because `strictVersions` is off). */
  clientVersion: boolean;
  type: StoredRecordType;
}

const TYPES = ['incoming', 'outgoing', 'event', 'generic'];

function isRecordType(type: string | null): type is RecordType {
  return type === 'incoming' || type === 'outgoing' || type === 'event';
}

function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function versionRule(kind: PlatformKind, type: string): string {
  return kind === 'universal' && type !== 'event'
    ? 'the version for universal-platform messages'
    : 'the version for sms, direct-message and messenger platforms, and for every event';
}

/**
 * Checks `platform`, `v` and `type`. The scripted form (`type=generic`) may omit `platform`
 * and `v`; when it gives them they must still be values the spec allows.
 */
export function checkTrackQuery(
  params: URLSearchParams,
  names: PlatformNames,
  { strictVersions = false }: { strictVersions?: boolean } = {},
): { ok: true; target: TrackTarget } | { ok: false; problems: ValidationIssue[] } {
  const problems: ValidationIssue[] = [];
  for (const name of ['platform', 'v', 'type', 'apiKey']) {
    const count = params.getAll(name).length;
    if (count > 1) problems.push({ path: name, expected: 'given once', received: `given ${count} times` });
  }
  const type = params.get('type');
  const platform = params.get('platform');
  const v = params.get('v');
  const scripted = type === 'generic';
  if (type === null) problems.push({ path: 'type', expected: 'one of "incoming", "outgoing", "event"', received: 'missing' });
  else if (!TYPES.includes(type)) problems.push({ path: 'type', expected: 'one of "incoming", "outgoing", "event" (or "generic" for the scripted form)', received: shown(type) });

  const allowed = `one of "sms", "universal", ${shown(names.directMessage)}, ${shown(names.messenger)}`;
  // Stryker disable next-line ConditionalExpression: platformKind gives undefined for a value that is no platform, null included; the test only narrows the type
  const kind = platform === null ? undefined : platformKind(platform, names);
  if (platform === null && !scripted) problems.push({ path: 'platform', expected: allowed, received: 'missing' });
  else if (platform !== null && kind === undefined) problems.push({ path: 'platform', expected: allowed, received: shown(platform) });

  const rule = !scripted && kind !== undefined && isRecordType(type) ? versionFor(kind, type) : undefined;
  const specV = rule ? `"${rule}" (${versionRule(kind as PlatformKind, type as string)})` : `one of ${API_VERSIONS.map((x) => `"${x}"`).join(', ')}`;
  const expectedV = strictVersions ? specV : `${specV}, or a client version such as "12.1.0-npm"`;
  const clientVersion = !strictVersions && v !== null && isClientVersion(v);
  if (v === null) {
    if (!scripted) problems.push({ path: 'v', expected: expectedV, received: 'missing' });
  } else if (!clientVersion && (rule ? v !== rule : !isApiVersion(v))) problems.push({ path: 'v', expected: expectedV, received: shown(v) });

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, target: { platform, kind: kind ?? null, v, clientVersion, type: type as StoredRecordType } };
}
