/**
 * What the local endpoint stores and what its read side returns. The spec shows no stored
 * representation and no read operations, so these shapes are this package's own.
 */
import type { ApiVersion, PlatformKind, RecordType, ValidationIssue } from 'botbuilder-conversation-analytics/protocol';

/** The kind of a stored record: the spec's three, plus `generic` for the scripted form (spec rule 6). */
export type StoredRecordType = RecordType | 'generic';

/**
 * One accepted tracking request, as the endpoint's database keeps it.
 *
 * @example
 * {"seq":7,"receivedAt":"2025-01-02T10:11:12.345Z","occurredAt":"2025-01-02T10:11:12.001Z","platform":"universal",
 *  "platformKind":"universal","v":"10.1.1-rest","type":"incoming","bot":"3f2a9c01d4e7","body":{"text":"hi","userId":"u1"}}
 */
export interface StoredRecord {
  /** The record's number: starts at 1 and only grows. Gaps are possible (a failed write consumes a number). */
  seq: number;
  /** When the endpoint accepted the record (ISO 8601, UTC). Assigned by the endpoint, not the client. */
  receivedAt: string;
  /**
   * When it happened, as the record says (an activity's `timestamp` in `platformJson`, a
   * messenger item's `timestamp`, an event's `extraInfo.timestamp` or `metadata.timestamp`), else `receivedAt`: the time
   * every figure uses, so that history and imported archives land on the right day.
   */
  occurredAt: string;
  /** The `platform` query value as sent, e.g. `twitter`; `null` for the scripted form. */
  platform: string | null;
  /** Which of the spec's platforms that value names; `null` for the scripted form. */
  platformKind: PlatformKind | null;
  /**
   * The `v` query value, which says which client sent the record: one of the spec's versions, or a
   * client's own such as `12.1.0-npm` (accepted unless the endpoint runs with `strictVersions`);
   * `null` for the scripted form.
   */
  v: ApiVersion | (string & {}) | null;
  /** The `type` query value. */
  type: StoredRecordType;
  /** A fingerprint of the API key the record came with (12 hex digits of its SHA-256), never the key itself. */
  bot: string;
  /** The request body as received, minus keys that could alter prototypes (`__proto__`, and `constructor` holding a `prototype`). */
  body: unknown;
}

/** Where a transcript entry goes: from the user, from the bot, or an event. */
export type Direction = 'incoming' | 'outgoing' | 'event';

/** An intent as shown in a transcript. */
export interface EntryIntent {
  name: string;
  inputs: { name: string; value: string }[];
}

/** A button as shown in a transcript. */
export interface EntryButton {
  id: string;
  label: string;
  value: string;
}

/** The event part of a transcript entry. */
export interface EntryEvent {
  /** The event's `name`. */
  name: string;
  /** `customEvent`, `revenueEvent`, `shareEvent`, `pageLaunchEvent` or `referralEvent`. */
  type: string;
  /** Revenue amount (revenue events only). */
  amount?: number;
  /** Revenue reference number, when given. */
  referenceNumber?: string;
  /** Revenue currency (ISO 4217 code, upper case) from `metadata.currency`, when given. */
  currency?: string;
  /** A custom or page-launch event's `extraInfo` (a feedback event's reaction and comment, say). */
  extraInfo?: Record<string, unknown>;
}

/**
 * One message or event of a transcript, normalised for display whatever the platform shape.
 * A messenger webhook record with several messaging items gives one entry per item.
 */
export interface TranscriptEntry {
  /** `seq` of the stored record the entry comes from. */
  seq: number;
  /** When it happened (ISO 8601, UTC): the record's own time where it gives one, else when it was received. */
  time: string;
  /** When the endpoint received it (ISO 8601, UTC). */
  receivedAt: string;
  /** `platform` query value; `null` for the scripted form. */
  platform: string | null;
  /** The record's `type`; `generic` marks the scripted form. */
  type: StoredRecordType;
  direction: Direction;
  /** The end user's id; `''` for scripted records, which carry none. */
  userId: string;
  /** The user's name, where the record carries it (the channel's `from.name` on what the user sends). */
  userName?: string;
  /** Conversation id (see the README for how it is derived); falls back to the user id. */
  conversationId: string;
  /** The Bot Framework channel (`platformJson.channelId`, e.g. `webchat`), when the record carries one. */
  channel?: string;
  text?: string;
  intent?: EntryIntent;
  /** The recognizer's confidence in the intent, when the intent carries it (a `score` input). */
  intentScore?: number;
  buttons?: EntryButton[];
  /** Id of the button the user clicked (`postback.buttonClick.buttonId`, or a messenger postback payload). */
  clickedButton?: string;
  /** Image URLs. */
  images?: string[];
  /**
   * `true` for a reply marked AI-generated: its `platformJson.entities` hold the Schema.org
   * `Message` entity with `additionalType` `AIGeneratedContent` (what the Agents SDK's
   * `addAIToActivity` and `StreamingResponse.setGeneratedByAILabel` add, and Teams labels).
   */
  aiGenerated?: true;
  /** The activity's id on its channel (`platformJson.id`), where the record carries it: what feedback refers to. */
  activityId?: string;
  event?: EntryEvent;
}

/** What `/api/users` and `/api/conversations` report for each user or conversation. */
export interface ActivitySummary {
  /** Platform of the latest record. */
  platform: string | null;
  /** Channel (`platformJson.channelId`) of the latest record that has one, else `null`. */
  channel: string | null;
  firstActivity: string;
  lastActivity: string;
  /** Incoming and outgoing messages. */
  messages: number;
  events: number;
}

/** One user in `/api/users`. */
export interface UserSummary extends ActivitySummary {
  userId: string;
  /** The user's name, where records carry it (the channel's `from.name`); show the id otherwise. */
  name?: string;
  /** The bot (its key's fingerprint); one user of two bots is listed once per bot. */
  bot?: string;
  /** The name given to that bot's key, if any. */
  botName?: string;
  /** Distinct conversations the user took part in. */
  conversations: number;
}

/** One conversation in `/api/conversations`. */
export interface ConversationSummary extends ActivitySummary {
  conversationId: string;
  /** The bot (its key's fingerprint). */
  bot?: string;
  /** The name given to that bot's key, if any. */
  botName?: string;
  /** The users seen in it, in order of first appearance. */
  userIds: string[];
}

/** Counts over everything stored, as `/api/summary` returns them. */
export interface TrackingSummary {
  /** Stored records (one per accepted request). */
  records: number;
  /** Transcript entries that are messages (a messenger webhook record may hold several). */
  messages: number;
  events: number;
  users: number;
  conversations: number;
  /** Records by `type`: incoming, outgoing, event, generic. */
  byType: Record<string, number>;
  /** Records by `platform` value; the scripted form counts under `(none)`. */
  byPlatform: Record<string, number>;
  /** Messages by intent name. */
  byIntent: Record<string, number>;
  /** Events by event type. */
  byEventType: Record<string, number>;
  /** Events by name (`purchase`, `feedback`…): the steps a funnel can use as `event:NAME`. */
  byEventName: Record<string, number>;
  /** Records by Bot Framework channel (`webchat`, `msteams`…); records without one are not counted here. */
  byChannel: Record<string, number>;
  /**
   * Revenue events: their number, and the sum of their `amount` per currency (`byCurrency`, keyed by
   * ISO 4217 code; `unknown` for events that name none). Amounts in different currencies are never
   * added: `total` is the sum when every revenue event is in one currency (or there are none: 0),
   * and `null` when they are in several (read `byCurrency`).
   */
  revenue: { total: number | null; count: number; byCurrency: Record<string, number> };
  /** `receivedAt` of the first and latest records; `null` when nothing is stored. */
  firstAt: string | null;
  lastAt: string | null;
}

/** The width of one bucket of `/api/timeseries`. Buckets start on whole minutes, hours or days in UTC. */
export type TimeBucket = 'minute' | 'hour' | 'day';

/** One bucket of `/api/timeseries`: what arrived from `start` up to the next bucket's start. */
export interface TimeseriesPoint {
  /** Start of the bucket (ISO 8601, UTC). */
  start: string;
  /** Messages from users. */
  incoming: number;
  /** Messages from the bot. */
  outgoing: number;
  /** Events of any type. */
  events: number;
  /** Incoming messages whose intent is `NotHandled`. */
  notHandled: number;
  /** Sum of the revenue events' `amount` (rounded to 6 decimals). */
  revenue: number;
}

/** How often one intent was seen, as `/api/intents` lists it. */
export interface IntentCount {
  name: string;
  /** Incoming messages with this intent. */
  incoming: number;
  /** Outgoing messages with this intent. */
  outgoing: number;
  /** The recognizer's average confidence in it (0 to 1), over the messages that carried a score; `null` when none did. */
  confidence: number | null;
}

// The read API's answers (JSON), shared with the page.

/** What `Analytics.timeseries` answers. */
export interface Timeseries {
  /** The bucket width used (the one asked for, or the one `auto` chose). */
  bucket: TimeBucket;
  /** Buckets oldest first, without gaps (empty ones hold zeros), ending with the latest activity. */
  points: TimeseriesPoint[];
}

/** What `Analytics.intents` answers. */
export interface IntentStats {
  /** Incoming messages in total, with or without an intent. */
  incomingMessages: number;
  /** Incoming messages whose intent is `NotHandled`. */
  notHandled: number;
  /** Distinct intent names seen. */
  total: number;
  /** Intents, most used (incoming + outgoing) first, then by name. */
  intents: IntentCount[];
}

/** A bucket width of `GET /api/timeseries`: minutes, hours, days (UTC), weeks (from Monday) or calendar months. */
export type TimeseriesBucket = TimeBucket | 'week' | 'month';

/** One bucket of `GET /api/timeseries`. */
export interface TimeseriesResponsePoint extends Omit<TimeseriesPoint, 'revenue'> {
  /**
   * Sum of the revenue events' `amount` (rounded to 6 decimals) when the range's revenue events are
   * all in one currency (or there are none); `null` when they are in several, as amounts in
   * different currencies are never added (`/api/analytics/revenue` has them per day and currency).
   */
  revenue: number | null;
}

/** `GET /api/timeseries`: buckets oldest first, without gaps. */
export interface TimeseriesResponse {
  /** The bucket width used (the one asked for, or the one `auto` chose to show the whole range). */
  bucket: TimeseriesBucket;
  /** Buckets oldest first, without gaps (empty ones hold zeros), ending with the latest activity. */
  points: TimeseriesResponsePoint[];
}

/** `GET /api/intents`: messages per intent, and the numbers of the `NotHandled` share. */
export type IntentsResponse = IntentStats;

/** `GET /api/record?seq=N`: one stored record exactly as the endpoint keeps it. */
export interface RecordResponse {
  record: StoredRecord;
}

/** The data of a `records` event: where the store stands. */
export interface RecordsEvent {
  /** The highest `seq` stored (`0` when nothing is). */
  lastSeq: number;
  /** Stored records. */
  records: number;
}

/** `GET /api/users`. */
export interface UsersResponse {
  /** Users in total (the list may be shortened by `limit`). */
  total: number;
  /** Most recently active first. */
  users: UserSummary[];
}

/** `GET /api/conversations`. */
export interface ConversationsResponse {
  total: number;
  /** Most recently active first. */
  conversations: ConversationSummary[];
}

/** `GET /api/transcript?user=ID` or `?conversation=ID`. */
export interface TranscriptResponse {
  /** The user asked for, or `null` when asking by conversation. */
  userId: string | null;
  /** The conversation asked for, or `null` when asking by user. */
  conversationId: string | null;
  /** Entries in the whole transcript (`entries` holds the latest `limit` of them). */
  total: number;
  /** In the order they happened (their time; of two at one moment, the one received first). */
  entries: TranscriptEntry[];
  /** Give it as `?before=` to read the entries before these (`SEQ:IDX` of the first one); `null` when there are none. */
  before: string | null;
}

/** `GET /api/bots`. */
export interface BotsResponse {
  bots: { bot: string; name: string | null; records: number }[];
}

/** The body of `GET /api/access`: who is reading and what they may do. */
export interface AccessResponse {
  /** The reader's name (`--reader NAME=…`, or the user the auth proxy names); null when reads are open (loopback, no reader configured). */
  reader: string | null;
  /** The bots the reader may see (the name given with `--key NAME=KEY`, else null); null: every bot. */
  bots: { bot: string; name: string | null }[] | null;
  /** May erase users' data. */
  admin: boolean;
}

/** The body of a 200 answer to `POST /track`. */
export interface TrackAccepted {
  ok: true;
  /** The stored record's `seq`. */
  id: number;
}

/** The body of every error response. */
export interface ErrorBody {
  ok: false;
  /** What went wrong and what to do, in a sentence. */
  error: string;
  /** Every problem found, with its path, when the request's query or body did not match the spec. */
  problems?: ValidationIssue[];
  /**
   * With a 503 for a request that waited for the views (built behind the acknowledgements) past
   * its bound: how far behind they are. A write answered so was not stored.
   */
  catchingUp?: CatchingUp;
}

/** How far behind the views are, in a 503 for a request that waited for them past its bound. */
export interface CatchingUp {
  /** Records acknowledged and not yet in the views (counted up to 200,000). */
  behindRecords: number;
  /** How long ago the oldest of them was received, in seconds. */
  behindSeconds: number;
}

// Analytics views (`/api/analytics/…`). Every view takes the filter (bot, platform, channel, from,
// to) and `?format=csv`; times are when things happened (see `StoredRecord.occurredAt`), in UTC.

/** How active-user counts are bucketed: UTC days, weeks starting on Monday, or calendar months. */
export type ActivityInterval = 'day' | 'week' | 'month';

/** One bucket of `/api/analytics/active-users`. */
export interface ActiveUsersPoint {
  /** Start of the day, week (Monday) or month (ISO 8601, UTC). */
  start: string;
  /** Users with a message or event in the bucket. */
  active: number;
  /** Of those, users whose first activity ever (within the bot, platform and channel asked for) is in the bucket. */
  new: number;
  /** `active - new`: users seen before the bucket who came back in it. */
  returning: number;
}

/** `GET /api/analytics/active-users?interval=day|week|month`. */
export interface ActiveUsersResponse {
  interval: ActivityInterval;
  /** Buckets oldest first, without gaps. */
  points: ActiveUsersPoint[];
}

/** One weekly cohort of `/api/analytics/retention`. */
export interface RetentionCohort {
  /** The Monday (ISO 8601, UTC) of the week its users were first seen. */
  week: string;
  /** Users first seen that week. */
  users: number;
  /**
   * `returned[k - 1]`: the share (0 to 1) of them active again in week k after it, for k = 1 to
   * 8; `null` for a week that has not begun. The current week, not over yet, holds the share back
   * so far (the page marks it as such).
   */
  returned: (number | null)[];
}

/** `GET /api/analytics/retention`: cohorts oldest first. */
export interface RetentionResponse {
  cohorts: RetentionCohort[];
}

/** `GET /api/analytics/sessions`: a session is one user in one conversation with no gap over 30 minutes. */
export interface SessionsResponse {
  sessions: number;
  /** Distinct users with a session. */
  users: number;
  /** Messages (in and out) per session, on average. */
  messagesPerSession: number;
  /** Average time from a session's first to its last message or event, in seconds. */
  averageLengthSeconds: number;
  /** Median of the same, in seconds. */
  medianLengthSeconds: number;
  /** Sessions started each day (UTC), oldest first. */
  perDay: { start: string; sessions: number }[];
}

/** `GET /api/analytics/paths`: the most common first steps of sessions (intents of what users said, and events as `event:NAME`). */
export interface PathsResponse {
  /** Sessions with at least one step. */
  sessions: number;
  paths: { steps: string[]; sessions: number; share: number }[];
}

/** `GET /api/analytics/funnel?steps=A,B,event:purchase`: users who took each step after the one before. */
export interface FunnelResponse {
  steps: { step: string; users: number; /** Share of the previous step's users lost here (0 for the first). */ dropOff: number; /** Share of the first step's users still here. */ conversion: number }[];
}

/** `GET /api/analytics/messages` (what users say) and `?unhandled=true` (what the bot did not understand). */
export interface MessagesResponse {
  /** Incoming messages counted (all, or those marked `NotHandled`). */
  total: number;
  /** Most frequent first; `text` is one way a user wrote it, `key` what they were grouped by. */
  messages: { text: string; key: string; count: number; share: number; intent: string | null }[];
}

/** `GET /api/analytics/buttons`: the buttons users clicked, most clicked first. */
export interface ButtonsResponse {
  total: number;
  buttons: { button: string; /** The button's label as the bot offered it (the label it was last offered with); else what the user's message said with the click; `null` when neither is known. */ label: string | null; clicks: number }[];
}

/** `GET /api/analytics/feedback`: thumbs up and down on replies (feedback events), and the share of replies marked AI-generated. */
export interface FeedbackResponse {
  up: number;
  down: number;
  perDay: { start: string; up: number; down: number }[];
  /** Per intent of the rated reply (or of the user's message it answered); `null` when none is known. */
  perIntent: { intent: string | null; up: number; down: number }[];
  /** The latest comments, newest first. */
  comments: { time: string; userId: string; userName: string | null; reaction: 'like' | 'dislike' | null; comment: string; intent: string | null; replyTo: string | null }[];
  ai: { replies: number; aiGenerated: number; share: number };
}

/** `GET /api/analytics/revenue`: revenue events by currency (`null` when the event names none). */
export interface RevenueResponse {
  byCurrency: { currency: string | null; total: number; count: number }[];
  perDay: { start: string; currency: string | null; total: number; count: number }[];
  /** The users who brought the most, by currency. */
  perUser: { userId: string; userName: string | null; bot: string; currency: string | null; total: number; count: number }[];
}

/** `GET /api/search?q=TEXT&user=ID`: messages whose text (or whose user's id or name) matches, newest first. */
export interface SearchResponse {
  results: (TranscriptEntry & { bot: string })[];
  /** True when there were more than `limit`. */
  more: boolean;
}
