/**
 * Counts for the page's charts, kept up to date as transcript entries are added: messages,
 * events, `NotHandled` messages and revenue per minute, and messages per intent. Hours and days
 * are summed from the minutes when asked, so adding an entry stays O(1).
 */
import type { IntentCount, IntentStats, TimeBucket, Timeseries, TimeseriesPoint, TranscriptEntry } from '../types.js';

/** The intent name a bot gives a message it could not handle; the page shows its share of incoming messages. */
export const NOT_HANDLED_INTENT = 'NotHandled';

/** Bucket widths in milliseconds. */
export const BUCKET_MS: Readonly<Record<TimeBucket, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

const MINUTE = BUCKET_MS.minute;

type Counts = Omit<TimeseriesPoint, 'start'>;

function zero(): Counts {
  return { incoming: 0, outgoing: 0, events: 0, notHandled: 0, revenue: 0 };
}

function addTo(total: Counts, part: Counts): void {
  total.incoming += part.incoming;
  total.outgoing += part.outgoing;
  total.events += part.events;
  total.notHandled += part.notHandled;
  total.revenue += part.revenue;
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** Per-minute and per-intent counts. Keys that come from clients live in Maps only. */
export class Analytics {
  private readonly minutes = new Map<number, Counts>();
  private readonly byIntent = new Map<string, IntentCount>();
  private incomingMessages = 0;
  private notHandled = 0;
  private firstMinute = Infinity;
  private lastMinute = -Infinity;

  /** Counts one entry. Never throws; an entry whose time cannot be read counts for intents only. */
  add(entry: TranscriptEntry): void {
    const notHandled = entry.direction === 'incoming' && entry.intent?.name === NOT_HANDLED_INTENT;
    if (entry.direction === 'incoming') {
      this.incomingMessages++;
      if (notHandled) this.notHandled++;
    }
    if (entry.intent && entry.direction !== 'event') {
      let count = this.byIntent.get(entry.intent.name);
      if (!count) this.byIntent.set(entry.intent.name, (count = { name: entry.intent.name, incoming: 0, outgoing: 0 }));
      count[entry.direction]++;
    }

    const time = Date.parse(entry.time);
    if (!Number.isFinite(time)) return;
    const minute = Math.floor(time / MINUTE) * MINUTE;
    if (minute < this.firstMinute) this.firstMinute = minute;
    if (minute > this.lastMinute) this.lastMinute = minute;
    let counts = this.minutes.get(minute);
    if (!counts) this.minutes.set(minute, (counts = zero()));
    if (entry.direction === 'event') {
      counts.events++;
      if (entry.event?.type === 'revenueEvent' && entry.event.amount !== undefined) counts.revenue += entry.event.amount;
    } else {
      counts[entry.direction]++;
      if (notHandled) counts.notHandled++;
    }
  }

  /** The smallest bucket width that shows everything from the first to the latest activity in at most `limit` buckets (days if none does). */
  private autoBucket(limit: number): TimeBucket {
    for (const bucket of ['minute', 'hour'] as const) {
      const size = BUCKET_MS[bucket];
      const span = Math.floor(this.lastMinute / size) - Math.floor(this.firstMinute / size) + 1;
      if (span <= limit) return bucket;
    }
    return 'day';
  }

  /**
   * Counts per bucket, oldest first, from the first activity to the latest with empty buckets
   * filled in; only the latest `limit` buckets when there are more. `auto` picks the smallest
   * width that fits everything in `limit` buckets. No activity gives no points.
   */
  timeseries(bucket: TimeBucket | 'auto', limit: number): Timeseries {
    const width = bucket === 'auto' ? (this.minutes.size === 0 ? 'minute' : this.autoBucket(limit)) : bucket;
    if (this.minutes.size === 0) return { bucket: width, points: [] };
    const size = BUCKET_MS[width];
    const last = Math.floor(this.lastMinute / size) * size;
    const first = Math.floor(this.firstMinute / size) * size;
    const count = Math.min(limit, (last - first) / size + 1);
    const start = last - (count - 1) * size;
    const buckets = Array.from({ length: count }, zero);
    for (const [minute, counts] of this.minutes) {
      const at = Math.floor(minute / size) * size;
      if (at >= start) addTo(buckets[(at - start) / size], counts);
    }
    const points = buckets.map((counts, i): TimeseriesPoint => ({
      start: new Date(start + i * size).toISOString(),
      ...counts,
      revenue: round6(counts.revenue),
    }));
    return { bucket: width, points };
  }

  /** Messages per intent, most used first, at most `limit` of them; and the `NotHandled` share's numbers. */
  intents(limit: number): IntentStats {
    const all = [...this.byIntent.values()].sort(
      (a, b) => b.incoming + b.outgoing - (a.incoming + a.outgoing) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    return {
      incomingMessages: this.incomingMessages,
      notHandled: this.notHandled,
      total: all.length,
      intents: all.slice(0, limit).map((count) => ({ ...count })),
    };
  }
}
