/**
 * The summary of some transcript entries (one user's, one conversation's), counted as the
 * endpoint's `/api/summary` counts everything: `/api/summary` takes no user or conversation.
 */
import type { TrackingSummary, TranscriptEntry } from '../index.js';

function add(counts: Record<string, number>, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}

/**
 * Counts `entries` as `/api/summary` does: records (one per stored record, however many entries
 * it gave), messages and events, users (scripted records, which name none, are not one) and
 * conversations; records by type, platform (`(none)` for the scripted form) and channel (an event
 * takes its conversation's, else its user's, as the endpoint stores it), messages by intent, events
 * by type and by name, revenue (count, and sums per currency rounded to 6 decimals, `unknown` for
 * events that name none; `total` only when there is one currency, else `null`), and the times of the
 * first and latest entries. Pure; never throws.
 */
export function summarizeEntries(entries: readonly TranscriptEntry[]): TrackingSummary {
  const summary: TrackingSummary = {
    records: 0, messages: 0, events: 0, users: 0, conversations: 0,
    byType: {}, byPlatform: {}, byIntent: {}, byEventType: {}, byEventName: {}, byChannel: {},
    revenue: { total: 0, count: 0, byCurrency: {} }, firstAt: null, lastAt: null,
  };
  // The channel an event without one is counted under: its conversation's, else its user's.
  const channels = new Map<string, string>();
  for (const entry of entries) {
    if (entry.channel === undefined) continue;
    channels.set(`c ${entry.conversationId}`, entry.channel);
    channels.set(`u ${entry.userId}`, entry.channel);
  }
  const channelOf = (entry: TranscriptEntry) =>
    entry.channel ?? (entry.direction === 'event' ? (channels.get(`c ${entry.conversationId}`) ?? channels.get(`u ${entry.userId}`)) : undefined);
  const byCurrency: Record<string, number> = {};
  const records = new Set<number>();
  const users = new Set<string>();
  const conversations = new Set<string>();
  let revenue = 0;
  let first = Infinity;
  let last = -Infinity;
  for (const entry of entries) {
    if (!records.has(entry.seq)) {
      records.add(entry.seq);
      add(summary.byType, entry.type);
      add(summary.byPlatform, entry.platform ?? '(none)');
      const channel = channelOf(entry);
      if (channel !== undefined) add(summary.byChannel, channel);
    }
    if (entry.userId !== '') users.add(entry.userId);
    conversations.add(entry.conversationId);
    if (entry.direction === 'event') {
      summary.events++;
      const type = entry.event?.type ?? '';
      add(summary.byEventType, type);
      add(summary.byEventName, entry.event?.name ?? '');
      if (type === 'revenueEvent') {
        summary.revenue.count++;
        revenue += entry.event?.amount ?? 0;
        add(byCurrency, entry.event?.currency ?? 'unknown', entry.event?.amount ?? 0);
      }
    } else {
      summary.messages++;
      if (entry.intent && entry.intent.name !== '') add(summary.byIntent, entry.intent.name);
    }
    const time = Date.parse(entry.time);
    if (time < first) first = time;
    if (time > last) last = time;
  }
  summary.records = records.size;
  summary.users = users.size;
  summary.conversations = conversations.size;
  for (const [currency, sum] of Object.entries(byCurrency).sort(([a], [b]) => (a < b ? -1 : 1))) summary.revenue.byCurrency[currency] = Math.round(sum * 1e6) / 1e6;
  // Amounts in different currencies are never added.
  summary.revenue.total = Object.keys(byCurrency).length > 1 ? null : Math.round(revenue * 1e6) / 1e6;
  if (Number.isFinite(first)) summary.firstAt = new Date(first).toISOString();
  if (Number.isFinite(last)) summary.lastAt = new Date(last).toISOString();
  return summary;
}
