/**
 * The tables of the endpoint's database, as Kysely sees them. The same schema on SQLite and
 * PostgreSQL (migrations/ creates it); times are whole milliseconds since the epoch (UTC) in
 * both, so that bucketing by hour or day is the same integer arithmetic on either database.
 *
 * `records` keeps every accepted request whole; `entries` holds what the read side shows (one row
 * per transcript entry: a messenger webhook record may hold several); the other tables summarise
 * them, so that reads never scan every record. A record is acknowledged once its row is committed;
 * entries and summaries (the views) are built behind it from `unprojected` (store/projection.ts).
 */
import type { ColumnType } from 'kysely';

/** A column written as a number and read back as one (PostgreSQL's bigint is parsed to a number; see postgres.ts). */
type Millis = number;

/** One accepted tracking request. */
export interface RecordsTable {
  seq: number;
  /** When the endpoint accepted it. */
  received_at: Millis;
  /** When it happened, as the record says (see `occurredAt` in read/normalise.ts), else `received_at`. */
  occurred_at: Millis;
  platform: string | null;
  platform_kind: string | null;
  v: string | null;
  type: string;
  bot: string;
  /** The body: JSON text on SQLite, jsonb on PostgreSQL (written as text, read back parsed). */
  body: ColumnType<unknown, string, string>;
  /** The `Idempotency-Key` header it was sent with; null when none. Unique per bot (migration 0007). */
  idempotency_key: string | null;
}

/** One transcript entry: a message in, a message out, or an event. */
export interface EntriesTable {
  seq: number;
  /** Position of the entry in its record (0 for all but messenger webhook batches). */
  idx: number;
  bot: string;
  occurred_at: Millis;
  received_at: Millis;
  /** The `platform` query value; `''` for the scripted form. */
  platform: string;
  /** The Bot Framework channel (`platformJson.channelId`); `''` when the record has none. */
  channel: string;
  direction: 'incoming' | 'outgoing' | 'event';
  user_id: string;
  user_name: string | null;
  conversation_id: string;
  text: string | null;
  /** `text` lowercased, without punctuation and extra spaces: what top-messages views group by. */
  text_key: string | null;
  intent: string | null;
  intent_score: number | null;
  clicked_button: string | null;
  /** 1 when the reply is marked AI-generated. */
  ai_generated: number;
  event_type: string | null;
  event_name: string | null;
  amount: number | null;
  currency: string | null;
  /** The activity's id (`platformJson.id`), so feedback can find the reply it rates. */
  activity_id: string | null;
  /** For a feedback event (a custom event named `feedback`): `like` or `dislike`. */
  reaction: string | null;
  /** For a feedback event: what the user wrote. For another event: nothing. */
  comment: string | null;
  /** For a feedback event: the id of the reply it rates. */
  reply_to: string | null;
  /**
   * For a feedback event: the intent it is about, found as it is stored: the rated reply's intent,
   * else the intent of the user's last message before that reply (or before the feedback).
   */
  rated_intent: string | null;
}

/** A user of a bot: who they are and when they were active. */
export interface UsersTable {
  bot: string;
  user_id: string;
  /** The name the latest record by time that has one gave (the channel's `from.name`), if any, and when that entry happened (0 for none). */
  name: string | null;
  name_at: Millis;
  first_at: Millis;
  last_at: Millis;
  /** Platform of the latest entry; channel of the latest entry that has one (`''` for none), and when that entry happened. */
  platform: string;
  channel: string;
  channel_at: Millis;
  /** Messages in and out, and events, of this user. */
  messages: number;
  events: number;
}

/** A conversation of a bot. */
export interface ConversationsTable {
  bot: string;
  conversation_id: string;
  first_at: Millis;
  last_at: Millis;
  platform: string;
  channel: string;
  /** When the entry that gave the channel happened. */
  channel_at: Millis;
  messages: number;
  events: number;
}

/** Who took part in a conversation, in order of first appearance. */
export interface ConversationUsersTable {
  bot: string;
  conversation_id: string;
  user_id: string;
  first_at: Millis;
}

/** The channels a conversation has entries on: one row each (what a list narrowed to a channel counts). */
export interface ConversationChannelsTable {
  channel: string;
  bot: string;
  conversation_id: string;
}

/**
 * Counts per hour and per day (`width`) and dimension, summed by every chart and summary: days
 * for long ranges, hours for short ones and hourly charts. Key columns are never null (`''` for
 * none), so that an upsert always finds its row.
 */
export interface CountsTable {
  bot: string;
  /** `h` (an hour) or `d` (a day, UTC). */
  width: 'h' | 'd';
  /** Start of the hour or day (ms). */
  at: Millis;
  platform: string;
  channel: string;
  /** The record's `type` (`incoming`, `outgoing`, `event`, `generic`). */
  type: string;
  /** `incoming`, `outgoing`, `event`, or `''` for a record that gave no entry. */
  direction: string;
  intent: string;
  event_type: string;
  /** An event's name (`''` for messages). */
  event_name: string;
  /** A revenue event's currency (`''` for none, and for everything else). */
  currency: string;
  /** Records whose first entry falls here (a record counts once however many entries it holds). */
  records: number;
  entries: number;
  ai_generated: number;
  revenue: number;
  /** Sum and number of the intent confidence scores recorded (for the intents' average confidence). */
  score_sum: number;
  scored: number;
}

/** Which days a user was active, per platform and channel: the base of active-user and retention figures. */
export interface UserDaysTable {
  bot: string;
  user_id: string;
  /** Start of the day (ms, UTC). */
  day: Millis;
  platform: string;
  channel: string;
  messages: number;
  events: number;
}

/** Which weeks (Monday to Sunday, UTC) a user was active, per platform and channel: the base of retention cohorts. */
export interface UserWeeksTable {
  bot: string;
  user_id: string;
  /** Start of the week (Monday 00:00 UTC, ms). */
  week: Millis;
  platform: string;
  channel: string;
}

/**
 * A session: one user's stretch in one conversation with no gap over 30 minutes. `path` holds its
 * first steps (intents of what the user said, and events) as a JSON array, for the paths view.
 */
export interface SessionsTable {
  /** `seq:idx` of its first entry. */
  id: string;
  bot: string;
  user_id: string;
  conversation_id: string;
  platform: string;
  channel: string;
  start_at: Millis;
  last_at: Millis;
  messages: number;
  events: number;
  path: string;
  steps: number;
}

/** The latest session of each user in each conversation: where the next entry goes. */
export interface SessionHeadsTable {
  bot: string;
  user_id: string;
  conversation_id: string;
  session_id: string;
}

/** What users said, per day: normalised text (and its intent) with a count, for the top and unhandled messages views. */
export interface DailyMessagesTable {
  bot: string;
  day: Millis;
  platform: string;
  channel: string;
  text_key: string;
  /** `''` when the message had no intent. */
  intent: string;
  /** One of the texts that normalise to `text_key`, as a user wrote it. */
  text: string;
  count: number;
}

/** What users said over all time (the top-messages views when no date range is asked): `daily_messages` without the day. */
export interface MessageTotalsTable {
  bot: string;
  platform: string;
  channel: string;
  text_key: string;
  intent: string;
  text: string;
  count: number;
}

/** The buttons users clicked, per day. */
export interface DailyClicksTable {
  bot: string;
  day: Millis;
  platform: string;
  channel: string;
  button: string;
  /** What the user's message said with a click (the button's title, for an imBack), if anything: shown when the button's offer (`button_labels`) is not known. */
  label: string;
  clicks: number;
}

/** Per bot and button id, the label the bot last offered the button with (by when it was offered). */
export interface ButtonLabelsTable {
  bot: string;
  button: string;
  label: string;
  /** When that offer happened (epoch ms): a later offer's label replaces this one, an earlier one's never does. */
  offered_at: Millis;
}

/** Sessions per day they started: how many, their messages, events and total length. */
export interface SessionDaysTable {
  bot: string;
  day: Millis;
  platform: string;
  channel: string;
  sessions: number;
  messages: number;
  events: number;
  /** Sum of the sessions' lengths (last minus first entry), in ms. */
  length_ms: number;
}

/** How long sessions were: a histogram per day they started (`bucket` is the lower bound, in seconds; see store/sessions.ts). */
export interface SessionLengthsTable {
  bot: string;
  day: Millis;
  platform: string;
  channel: string;
  bucket: number;
  sessions: number;
}

/** Sessions per day they started and per path (their first steps, JSON), for the paths view. */
export interface SessionPathsTable {
  bot: string;
  day: Millis;
  platform: string;
  channel: string;
  path: string;
  sessions: number;
}

/** Data imported from elsewhere (today: NDJSON files of earlier versions), so nothing is imported twice. */
export interface ImportsTable {
  source: string;
  records: number;
  imported_at: Millis;
}

/** A record committed but not yet in the views (entries and summary tables). */
export interface UnprojectedTable {
  seq: number;
}

/** One erasure of a user's data (store/forget.ts): the audit, without the user id in clear. */
export interface ErasuresTable {
  at: Millis;
  /** Who asked: a reader's name, or what `forget --by` said; null when reads are open. */
  by: string | null;
  bot: string;
  /** The first 16 hex digits of the SHA-256 of the user id. */
  user_hash: string;
  records: number;
  entries: number;
}

/** The database as Kysely types it. */
export interface Database {
  records: RecordsTable;
  entries: EntriesTable;
  users: UsersTable;
  conversations: ConversationsTable;
  conversation_users: ConversationUsersTable;
  conversation_channels: ConversationChannelsTable;
  counts: CountsTable;
  user_days: UserDaysTable;
  user_weeks: UserWeeksTable;
  sessions: SessionsTable;
  session_heads: SessionHeadsTable;
  daily_messages: DailyMessagesTable;
  message_totals: MessageTotalsTable;
  daily_clicks: DailyClicksTable;
  button_labels: ButtonLabelsTable;
  session_days: SessionDaysTable;
  session_lengths: SessionLengthsTable;
  session_paths: SessionPathsTable;
  imports: ImportsTable;
  unprojected: UnprojectedTable;
  erasures: ErasuresTable;
}
