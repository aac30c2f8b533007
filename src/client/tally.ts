/**
 * What was not delivered, counted by kind of record, and said in one line: `3 records given up:
 * 2 incoming, 1 revenueEvent`. The reporter warns about the first failure of a run in full and
 * counts the others (reporter.ts); this says how many records each batch of failures cost and of
 * which kind, so that no record goes silently. A batch is what fails within `TALLY_INTERVAL_MS`
 * of its first record: its line is written when the client next goes quiet (no request in flight)
 * after that, or sooner at the end of a `flush()`, at `close()`, or when the process ends. No
 * timer: the line is written on the client's own way, never keeping a process alive or busy.
 */
import type { RecordType } from '../protocol/index.js';
import type { SafeLogger } from './logger.js';

/** What became of a record that was not delivered. */
export type Fate = 'given up' | 'dropped' | 'saved to persistDir';

/** How long a batch of failures is counted before the client, once quiet, says it. */
export const TALLY_INTERVAL_MS = 10_000;

/**
 * A record's kind as lines name it: its type (`incoming`, `outgoing`), or for an event its event
 * type (`revenueEvent`), read from its JSON body only when it is counted.
 */
export function kindOf(type: RecordType, json: string | undefined): string {
  if (type !== 'event' || json === undefined) return type;
  try {
    const event = JSON.parse(json) as { type?: unknown } | null;
    return typeof event?.type === 'string' && /^[A-Za-z]{1,40}$/.test(event.type) ? event.type : type;
  } catch {
    return type;
  }
}

/** `3 records given up: 2 incoming, 1 revenueEvent`, kinds most first (then by name). */
export function describeCounts(what: string, counts: ReadonlyMap<string, number>): string {
  let total = 0;
  for (const n of counts.values()) total += n;
  const kinds = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([kind, n]) => `${n} ${kind}`);
  return `${total} record${total === 1 ? '' : 's'} ${what}: ${kinds.join(', ')}`;
}

export class LossTally {
  private readonly counts = new Map<Fate, Map<string, number>>();
  /** When the first record of the batch being counted was (`now()`). */
  private batchStartedAt = 0;

  constructor(
    private readonly log: SafeLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one record of `kind` that was not delivered; its line follows (see the file's header). */
  count(fate: Fate, kind: string): void {
    if (this.counts.size === 0) this.batchStartedAt = this.now();
    let byKind = this.counts.get(fate);
    if (byKind === undefined) this.counts.set(fate, (byKind = new Map()));
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }

  /** The client went quiet: writes the batch's line once its first record is `TALLY_INTERVAL_MS` old. */
  quiet(): void {
    if (this.counts.size > 0 && this.now() - this.batchStartedAt >= TALLY_INTERVAL_MS) this.flush();
  }

  /** Writes the line for what was counted since the last one (if anything was), now. */
  flush(): void {
    if (this.counts.size === 0) return;
    const parts: string[] = [];
    for (const fate of ['given up', 'dropped', 'saved to persistDir'] as const) {
      const byKind = this.counts.get(fate);
      if (byKind !== undefined) parts.push(describeCounts(fate, byKind));
    }
    const fields: Record<string, unknown> = {};
    for (const [fate, byKind] of this.counts) fields[fate] = Object.fromEntries(byKind);
    this.counts.clear();
    this.log.warn(fields, `tracking: ${parts.join('; ')}`);
  }
}
