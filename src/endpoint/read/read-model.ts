/**
 * In-memory indexes over stored records: users, conversations, transcripts and counts. Every
 * read of the endpoint comes from here; records are added in `seq` order. Keys that come from
 * clients (user ids, intent names…) live in Maps or null-prototype objects, never as properties
 * of plain objects, so a value such as `__proto__` is just a name.
 */
import { Analytics } from './analytics.js';
import { transcriptEntries } from './normalise.js';
import type { ConversationSummary, StoredRecord, TrackingSummary, TranscriptEntry, UserSummary } from '../types.js';

interface Activity {
  platform: string | null;
  channel: string | null;
  /** Every platform value seen (`(none)` for the scripted form), for filtering. */
  platforms: Set<string>;
  /** Every intent name seen on a message, for filtering. */
  intents: Set<string>;
  firstActivity: string;
  lastActivity: string;
  messages: number;
  events: number;
  entries: TranscriptEntry[];
}

interface UserState extends Activity {
  conversations: Set<string>;
}

interface ConversationState extends Activity {
  userIds: Set<string>;
}

/** Narrows the user and conversation lists: only those with a record on `platform`, or a message with `intent`. */
export interface ActivityFilter {
  /** A `platform` value, or `(none)` for the scripted form. */
  platform?: string;
  /** An intent name. */
  intent?: string;
}

function matches(state: Activity, filter: ActivityFilter): boolean {
  return (filter.platform === undefined || state.platforms.has(filter.platform)) && (filter.intent === undefined || state.intents.has(filter.intent));
}

function touch(state: Activity, entry: TranscriptEntry): void {
  state.platform = entry.platform;
  state.platforms.add(entry.platform ?? '(none)');
  if (entry.channel !== undefined) state.channel = entry.channel;
  if (entry.intent && entry.direction !== 'event') state.intents.add(entry.intent.name);
  state.lastActivity = entry.time;
  if (entry.direction === 'event') state.events++;
  else state.messages++;
  state.entries.push(entry);
}

function fresh(entry: TranscriptEntry): Activity {
  return {
    platform: entry.platform, channel: null, platforms: new Set(), intents: new Set(),
    firstActivity: entry.time, lastActivity: entry.time, messages: 0, events: 0, entries: [],
  };
}

function increment(counts: Map<string, number>, key: string, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

function toObject(counts: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  for (const [key, value] of counts) out[key] = value;
  return out;
}

function byLatest<T extends { lastActivity: string }>(a: T, b: T): number {
  return a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0;
}

/** Called with each record added to a `ReadModel`, after it is indexed. */
export type RecordListener = (record: StoredRecord) => void;

/** Users, conversations, transcripts and counts, kept up to date as records are added. */
export class ReadModel {
  /** Per-minute and per-intent counts for the page's charts. */
  readonly analytics = new Analytics();
  private readonly listeners = new Set<RecordListener>();
  private latestSeq = 0;
  private readonly userStates = new Map<string, UserState>();
  private readonly conversationStates = new Map<string, ConversationState>();
  private readonly byType = new Map<string, number>();
  private readonly byPlatform = new Map<string, number>();
  private readonly byIntent = new Map<string, number>();
  private readonly byEventType = new Map<string, number>();
  private revenueTotal = 0;
  private revenueCount = 0;
  private recordCount = 0;
  private messageCount = 0;
  private eventCount = 0;
  private firstAt: string | null = null;
  private lastAt: string | null = null;

  /** Adds one record (in `seq` order). Never throws, whatever the record's body holds. */
  add(record: StoredRecord): void {
    this.recordCount++;
    this.firstAt ??= record.receivedAt;
    this.lastAt = record.receivedAt;
    increment(this.byType, record.type);
    increment(this.byPlatform, record.platform ?? '(none)');
    if (record.seq > this.latestSeq) this.latestSeq = record.seq;
    for (const entry of transcriptEntries(record)) this.addEntry(entry);
    for (const listener of this.listeners) {
      try {
        listener(record);
      } catch {
        // A listener's failure is its own; the record is indexed all the same.
      }
    }
  }

  /** The highest `seq` added so far; `0` when nothing is stored. */
  get lastSeq(): number {
    return this.latestSeq;
  }

  /**
   * Calls `listener` with every record added from now on (synchronously, after it is indexed).
   * Returns a function that stops the calls. A listener that throws is ignored.
   */
  onRecord(listener: RecordListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private addEntry(entry: TranscriptEntry): void {
    let user = this.userStates.get(entry.userId);
    if (!user) this.userStates.set(entry.userId, (user = { ...fresh(entry), conversations: new Set() }));
    touch(user, entry);
    user.conversations.add(entry.conversationId);

    let conversation = this.conversationStates.get(entry.conversationId);
    if (!conversation) this.conversationStates.set(entry.conversationId, (conversation = { ...fresh(entry), userIds: new Set() }));
    touch(conversation, entry);
    conversation.userIds.add(entry.userId);
    this.analytics.add(entry);

    if (entry.event) {
      this.eventCount++;
      increment(this.byEventType, entry.event.type);
      if (entry.event.type === 'revenueEvent' && entry.event.amount !== undefined) {
        this.revenueTotal += entry.event.amount;
        this.revenueCount++;
      }
    } else {
      this.messageCount++;
      if (entry.intent) increment(this.byIntent, entry.intent.name);
    }
  }

  /** Every user (or those that match `filter`), most recently active first. */
  users(filter: ActivityFilter = {}): UserSummary[] {
    const out: UserSummary[] = [];
    for (const [userId, s] of this.userStates) {
      if (!matches(s, filter)) continue;
      out.push({
        userId, platform: s.platform, channel: s.channel, firstActivity: s.firstActivity, lastActivity: s.lastActivity,
        messages: s.messages, events: s.events, conversations: s.conversations.size,
      });
    }
    return out.sort(byLatest);
  }

  /** Every conversation (or those that match `filter`), most recently active first. */
  conversations(filter: ActivityFilter = {}): ConversationSummary[] {
    const out: ConversationSummary[] = [];
    for (const [conversationId, s] of this.conversationStates) {
      if (!matches(s, filter)) continue;
      out.push({
        conversationId, userIds: [...s.userIds], platform: s.platform, channel: s.channel, firstActivity: s.firstActivity,
        lastActivity: s.lastActivity, messages: s.messages, events: s.events,
      });
    }
    return out.sort(byLatest);
  }

  /** One user's entries in the order they were received, or `undefined` for a user never seen. */
  userTranscript(userId: string): readonly TranscriptEntry[] | undefined {
    return this.userStates.get(userId)?.entries;
  }

  /** One conversation's entries in the order they were received, or `undefined` when unknown. */
  conversationTranscript(conversationId: string): readonly TranscriptEntry[] | undefined {
    return this.conversationStates.get(conversationId)?.entries;
  }

  /** Counts over everything added so far. */
  summary(): TrackingSummary {
    return {
      records: this.recordCount,
      messages: this.messageCount,
      events: this.eventCount,
      users: this.userStates.size,
      conversations: this.conversationStates.size,
      byType: toObject(this.byType),
      byPlatform: toObject(this.byPlatform),
      byIntent: toObject(this.byIntent),
      byEventType: toObject(this.byEventType),
      revenue: { total: Math.round(this.revenueTotal * 1e6) / 1e6, count: this.revenueCount },
      firstAt: this.firstAt,
      lastAt: this.lastAt,
    };
  }
}
