/**
 * Where each kind of record goes: the tracking URL (with the platform's wire value, the version
 * the spec gives that platform and record type, and the key) and the label reports use, for every
 * platform kind and record type, built once per client.
 */
import { platformValue, PLATFORM_KINDS, RECORD_TYPES, trackUrl, versionFor, type PlatformNames, type RecordType } from '../protocol/index.js';
import type { RecordTarget } from './delivery-types.js';

/**
 * A platform kind and record type's URL and label (such as `facebook outgoing`: names the kind of
 * record in reports, never its content). Every queued record of that kind refers to this one object.
 */
export type Target = RecordTarget;

export class Targets {
  private readonly table = new Map<string, Map<string, Target>>();

  constructor(options: { baseUrl: string; apiKey: string; platformNames: PlatformNames }) {
    for (const kind of PLATFORM_KINDS) {
      const byType = new Map<string, Target>();
      const platform = platformValue(kind, options.platformNames);
      for (const type of RECORD_TYPES) {
        const url = trackUrl(options.baseUrl, { platform, v: versionFor(kind, type), type, apiKey: options.apiKey });
        byType.set(type, { url, label: `${platform} ${type}`, platform: kind, type });
      }
      this.table.set(kind, byType);
    }
  }

  /** The target of `type` records on platform kind `kind`; `undefined` for a kind that does not exist (a caller's typo). */
  get(kind: string, type: RecordType): Target | undefined {
    return this.table.get(kind)?.get(type);
  }
}
