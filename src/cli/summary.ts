/**
 * The summary of some transcript entries (one user's, one conversation's), counted as the
 * endpoint's `/api/summary` counts everything: `/api/summary` takes no user or conversation.
 */
import type { TrackingSummary, TranscriptEntry } from '../endpoint/index.js';

function add(counts: Record<string, number>, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}

/**
 * Counts `entries` as `/api/summary` does: records (one per stored record, however many entries
 * it gave), messages and events, users (scripted records, which name none, are not one) and
 * conversations; records by type and platform (`(none)` for the scripted form), messages by
 * intent, events by type, revenue (sum rounded to 6 decimals, and count), and the times of the
 * first and latest entries. Pure; never throws.
 */
export function summarizeEntries(entries: readonly TranscriptEntry[]): TrackingSummary {
  const summary: TrackingSummary = {
    records: 0, messages: 0, events: 0, users: 0, conversations: 0,
    byType: {}, byPlatform: {}, byIntent: {}, byEventType: {}, revenue: { total: 0, count: 0 }, firstAt: null, lastAt: null,
  };
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
    }
    if (entry.userId !== '') users.add(entry.userId);
    conversations.add(entry.conversationId);
    if (entry.direction === 'event') {
      summary.events++;
      const type = entry.event?.type ?? '';
      add(summary.byEventType, type);
      if (type === 'revenueEvent') {
        summary.revenue.count++;
        revenue += entry.event?.amount ?? 0;
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
  summary.revenue.total = Math.round(revenue * 1e6) / 1e6;
  if (Number.isFinite(first)) summary.firstAt = new Date(first).toISOString();
  if (Number.isFinite(last)) summary.lastAt = new Date(last).toISOString();
  return summary;
}
