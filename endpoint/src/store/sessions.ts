/**
 * Sessions, kept as records arrive: a session is one user's stretch in one conversation with no
 * gap over 30 minutes (so a long-lived conversation, such as a Messenger thread, is one session
 * per visit), in the order its entries happened, whatever order they arrive in. An entry that
 * happened after its user's latest session in that conversation extends it when it falls within
 * 30 minutes of it, else starts a new one; an older one (late) re-derives the sessions around its
 * time (`sessionRows`). The first steps of each session (the intents of what the user said, and
 * the events, in the order they happened) are kept as its path.
 */
import type { Transaction } from 'kysely';
import type { Database, EntriesTable, SessionDaysTable, SessionHeadsTable, SessionLengthsTable, SessionPathsTable, SessionsTable } from './schema.js';

/** A pause longer than this ends a session. */
export const SESSION_GAP_MS = 30 * 60_000;
/**
 * Sessions read per statement while looking for those a late entry touches: the window usually
 * holds one to three (a session starting just after it, its own, the one before that ends the
 * scan), and each row read is a page of the sessions table that is rarely in memory.
 */
const SCAN_SESSIONS = 4;
/** Steps of a session's path that are kept. */
export const MAX_PATH_STEPS = 8;
/** How an event appears in a path: `event:NAME`. */
export const EVENT_STEP_PREFIX = 'event:';

/** The name of the event a rating of a reply is recorded as: a judgement of the bot, not a step of the user's way through it. */
const FEEDBACK_EVENT = 'feedback';

/**
 * The step an entry adds to its session's path: an incoming message's intent, or an event
 * (`event:name`), feedback excepted; none for the rest.
 */
export function stepOf(entry: Pick<EntriesTable, 'direction' | 'intent' | 'event_name'>): string | undefined {
  if (entry.direction === 'incoming') return entry.intent ?? undefined;
  if (entry.direction === 'event' && entry.event_name && entry.event_name !== FEEDBACK_EVENT) return `${EVENT_STEP_PREFIX}${entry.event_name}`;
  return undefined;
}

const DAY = 86_400_000;

/**
 * The length bucket of a session (its lower bound, in seconds): to 10 seconds under 10 minutes,
 * to the minute under an hour, to 10 minutes under 4 hours, then one bucket. The sessions view's
 * median is the bucket that holds the middle session.
 */
export function lengthBucket(lengthMs: number): number {
  const seconds = Math.max(0, Math.floor(lengthMs / 1000));
  if (seconds < 600) return Math.floor(seconds / 10) * 10;
  if (seconds < 3600) return Math.floor(seconds / 60) * 60;
  if (seconds < 14_400) return Math.floor(seconds / 600) * 600;
  return 14_400;
}

/** What a session adds to the per-day tables. */
interface Contribution {
  day: number;
  bucket: number;
  messages: number;
  events: number;
  length: number;
  /** The path's JSON, `''` for a session without steps (not counted among paths). */
  path: string;
}

function contributionOf(session: Pick<SessionsTable, 'start_at' | 'last_at' | 'messages' | 'events'> & { pathSteps: string[] }): Contribution {
  const length = session.last_at - session.start_at;
  const path = session.pathSteps.length === 0 ? '' : JSON.stringify(session.pathSteps);
  return { day: Math.floor(session.start_at / DAY) * DAY, bucket: lengthBucket(length), messages: session.messages, events: session.events, length, path };
}

export interface Session extends SessionsTable {
  pathSteps: string[];
}

const keyOf = (bot: string, user: string, conversation: string) => `${bot}\u0000${user}\u0000${conversation}`;

function extend(session: Session, entry: SessionEntry): void {
  session.start_at = Math.min(session.start_at, entry.occurred_at);
  session.last_at = Math.max(session.last_at, entry.occurred_at);
  if (entry.direction === 'event') session.events++;
  else session.messages++;
  const step = stepOf(entry);
  if (step !== undefined && session.pathSteps.length < MAX_PATH_STEPS && session.pathSteps[session.pathSteps.length - 1] !== step) session.pathSteps.push(step);
}

/** The columns of an entry that sessions are made of. */
export type SessionEntry = Pick<EntriesTable, 'seq' | 'idx' | 'bot' | 'user_id' | 'conversation_id' | 'platform' | 'channel' | 'occurred_at' | 'direction' | 'intent' | 'event_name'>;

/** The order entries happened in: their time, then arrival (`seq`), then their place in the record. */
export function byTime(a: Pick<EntriesTable, 'occurred_at' | 'seq' | 'idx'>, b: Pick<EntriesTable, 'occurred_at' | 'seq' | 'idx'>): number {
  return a.occurred_at - b.occurred_at || a.seq - b.seq || a.idx - b.idx;
}

function startSession(entry: SessionEntry): Session {
  return {
    id: `${entry.seq}:${entry.idx}`, bot: entry.bot, user_id: entry.user_id, conversation_id: entry.conversation_id, platform: entry.platform, channel: entry.channel,
    start_at: entry.occurred_at, last_at: entry.occurred_at, messages: 0, events: 0, path: '[]', steps: 0, pathSteps: [],
  };
}

/**
 * The sessions one user's entries in one conversation make (the entries in the order they
 * happened): a new session wherever more than 30 minutes pass between two entries. Each is named
 * by its first entry (`seq:idx`) and takes that entry's platform and channel. Whatever order the
 * entries arrived in, the same sessions.
 */
export function deriveSessions(entries: readonly SessionEntry[]): Session[] {
  const sessions: Session[] = [];
  let current: Session | undefined;
  for (const entry of [...entries].sort(byTime)) {
    if (current === undefined || entry.occurred_at > current.last_at + SESSION_GAP_MS) sessions.push((current = startSession(entry)));
    extend(current, entry);
  }
  return sessions;
}

const sessionOf = (row: SessionsTable): Session => ({
  ...row, pathSteps: JSON.parse(row.path) as string[], start_at: Number(row.start_at), last_at: Number(row.last_at), messages: Number(row.messages), events: Number(row.events), steps: Number(row.steps),
});

/** What a batch does to the sessions and their per-day tables. */
export interface SessionChanges {
  /** Sessions new or changed. */
  sessions: SessionsTable[];
  /** Ids of sessions that are no more (merged into another by a late entry). */
  gone: string[];
  heads: SessionHeadsTable[];
  /** Changes to the per-day sessions table (to add: negative where a session moved out of a row). */
  days: SessionDaysTable[];
  /** Changes to the length histogram (likewise). */
  lengths: SessionLengthsTable[];
  /** Changes to the sessions per path (likewise). */
  paths: SessionPathsTable[];
}

/**
 * The sessions (new, changed and gone) and session heads that a batch's entries make, reading
 * the latest session of each user and conversation in the batch from `trx`. On PostgreSQL those
 * rows are locked until the transaction ends (`lockRows`), so two endpoints never extend one
 * session at once.
 *
 * Entries that happened at or after the latest session's last entry (the usual case) extend it or
 * start sessions after it. An entry older than that (it arrived late) re-derives that user's
 * sessions in that conversation over the window it touches: the stored sessions within 30 minutes
 * of the batch's entries of that user (and those within 30 minutes of them), and every entry of
 * theirs in that window (the batch's, written already, included) are read, their sessions made
 * again (`deriveSessions`: a late entry joins the session its time falls in, or starts one of its
 * own, or joins two), and what the old ones added to the per-day tables is taken off and what
 * the new ones add is added. The rest of the history is not read, so the cost does not grow with it.
 */
export async function sessionRows(trx: Transaction<Database>, entries: readonly EntriesTable[], lockRows: boolean): Promise<SessionChanges> {
  const tracked = entries.filter((entry) => entry.user_id !== '' && entry.conversation_id !== '');
  if (tracked.length === 0) return { sessions: [], gone: [], heads: [], days: [], lengths: [], paths: [] };
  const byKey = new Map<string, EntriesTable[]>();
  for (const entry of [...tracked].sort(byTime)) {
    const key = keyOf(entry.bot, entry.user_id, entry.conversation_id);
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [entry]);
    else list.push(entry);
  }

  const heads = new Map<string, Session>();
  const tuples = [...byKey.values()].map((list) => [list[0].bot, list[0].user_id, list[0].conversation_id] as const).sort();
  for (let i = 0; i < tuples.length; i += 300) {
    const part = tuples.slice(i, i + 300);
    const rows = await trx.selectFrom('session_heads as h')
      .innerJoin('sessions as s', 's.id', 'h.session_id')
      .selectAll('s')
      .where((eb) => eb(eb.refTuple('h.bot', 'h.user_id', 'h.conversation_id'), 'in', part.map(([b, u, c]) => eb.tuple(b, u, c))))
      .$if(lockRows, (q) => q.forUpdate())
      .execute();
    for (const row of rows) heads.set(keyOf(row.bot, row.user_id, row.conversation_id), sessionOf(row));
  }

  // What each session read from the database added to the per-day tables before this batch, and the sessions it ends as.
  const before = new Map<string, Session>();
  const touched = new Map<string, Session>();
  const gone = new Set<string>();
  for (const [key, list] of byKey) {
    const head = heads.get(key);
    if (head === undefined || list[0].occurred_at >= head.last_at) {
      // In order: each entry extends the latest session, or starts one after it.
      const was = head === undefined ? undefined : { ...head, pathSteps: [...head.pathSteps] };
      let latest = head;
      for (const entry of list) {
        if (latest === undefined || entry.occurred_at > latest.last_at + SESSION_GAP_MS) latest = startSession(entry);
        extend(latest, entry);
        touched.set(latest.id, latest);
      }
      if (was !== undefined && touched.has(was.id)) before.set(was.id, was);
      heads.set(key, latest!);
      continue;
    }
    // Late: the sessions within 30 minutes of the window, widened until no other one is, and every entry in it.
    const { bot, user_id: user, conversation_id: conversation } = list[0];
    let from = list[0].occurred_at;
    let to = list[list.length - 1].occurred_at;
    const old = new Map<string, Session>();
    for (let later = true; later;) {
      later = false;
      // Latest first from the window's end: a user's sessions in a conversation follow one another,
      // so the first that ends more than 30 minutes before the window ends the scan.
      let cursor: [number, string] | undefined;
      for (let more = true; more;) {
        const rows = await trx.selectFrom('sessions').selectAll()
          .where('user_id', '=', user).where('conversation_id', '=', conversation).where('bot', '=', bot)
          .where('start_at', '<=', to + SESSION_GAP_MS)
          .$if(cursor !== undefined, (q) => q.where((eb) => eb(eb.refTuple('start_at', 'id'), '<', eb.tuple(cursor![0], cursor![1]))))
          .orderBy('start_at', 'desc').orderBy('id', 'desc').limit(SCAN_SESSIONS)
          .$if(lockRows, (q) => q.forUpdate())
          .execute();
        more = rows.length === SCAN_SESSIONS;
        for (const row of rows) {
          const session = sessionOf(row);
          cursor = [session.start_at, session.id];
          // Stryker disable next-line ConditionalExpression,BlockStatement: only ends the scan: the sessions read past it are more than 30 minutes apart, and are derived again as they were
          if (session.last_at < from - SESSION_GAP_MS) {
            // Stryker disable next-line BooleanLiteral: likewise (the scan then goes on back, a page at a time, to the first session)
            more = false;
            break;
          }
          // Stryker disable next-line ConditionalExpression: a session met again on a second pass is the same row: set again, it changes neither the window nor what is derived
          if (old.has(session.id)) continue;
          old.set(session.id, session);
          from = Math.min(from, session.start_at);
          // A session that ends after the window widens it: sessions after it may then be within 30
          // minutes. (Stored sessions of one user and conversation are more than 30 minutes apart, so
          // the second pass finds none new unless they were not: it is a guard.)
          // Stryker disable next-line EqualityOperator,BooleanLiteral: see above: a second pass, or none, finds the same sessions
          if (session.last_at > to) [to, later] = [session.last_at, true];
        }
      }
    }
    const stored = await trx.selectFrom('entries')
      .select(['seq', 'idx', 'bot', 'user_id', 'conversation_id', 'platform', 'channel', 'occurred_at', 'direction', 'intent', 'event_name'])
      .where('user_id', '=', user).where('occurred_at', '>=', from).where('occurred_at', '<=', to)
      .where('conversation_id', '=', conversation).where('bot', '=', bot)
      .execute();
    const made = deriveSessions(stored.map((row) => ({ ...row, seq: Number(row.seq), idx: Number(row.idx), occurred_at: Number(row.occurred_at) })));
    for (const session of old.values()) {
      before.set(session.id, session);
      gone.add(session.id);
    }
    for (const session of made) {
      gone.delete(session.id);
      touched.set(session.id, session);
    }
    // The latest session moves only when it was in the window: then the window's last one is.
    if (old.has(head.id)) heads.set(key, made[made.length - 1]);
  }

  // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator,ArithmeticOperator,UnaryOperator: the order rows are written in (fixed, so that writers lock them alike) does not change them
  const sessions = [...touched.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map(({ pathSteps, ...row }) => ({ ...row, path: JSON.stringify(pathSteps), steps: pathSteps.length }));
  // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator,ArithmeticOperator,UnaryOperator: the order rows are written in (fixed, so that writers lock them alike) does not change them
  const headRows = [...byKey.keys()].sort().flatMap((key) => {
    const head = heads.get(key)!;
    return !touched.has(head.id) ? [] : [{ bot: head.bot, user_id: head.user_id, conversation_id: head.conversation_id, session_id: head.id }];
  });
  // The per-day tables change by what each touched session adds now, less what each session it replaces added before.
  const days = new Map<string, SessionDaysTable>();
  const lengths = new Map<string, SessionLengthsTable>();
  const paths = new Map<string, SessionPathsTable>();
  const add = (session: Session, sign: 1 | -1) => {
    const part = contributionOf(session);
    const dayKey = keyOf(session.bot, String(part.day), session.platform) + `\u0000${session.channel}`;
    const day = days.get(dayKey) ?? { bot: session.bot, day: part.day, platform: session.platform, channel: session.channel, sessions: 0, messages: 0, events: 0, length_ms: 0 };
    day.sessions += sign;
    day.messages += sign * part.messages;
    day.events += sign * part.events;
    day.length_ms += sign * part.length;
    days.set(dayKey, day);
    const lengthKey = `${dayKey}\u0000${part.bucket}`;
    const length = lengths.get(lengthKey) ?? { bot: session.bot, day: part.day, platform: session.platform, channel: session.channel, bucket: part.bucket, sessions: 0 };
    length.sessions += sign;
    lengths.set(lengthKey, length);
    if (part.path !== '') {
      const pathKey = `${dayKey}\u0000${part.path}`;
      const path = paths.get(pathKey) ?? { bot: session.bot, day: part.day, platform: session.platform, channel: session.channel, path: part.path, sessions: 0 };
      path.sessions += sign;
      paths.set(pathKey, path);
    }
  };
  for (const session of before.values()) add(session, -1);
  for (const session of touched.values()) add(session, 1);
  // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator,ArithmeticOperator,UnaryOperator: the order rows are written in (fixed, so that writers lock them alike) does not change them
  const changed = <T extends { sessions: number }>(rows: Map<string, T>) => [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row)
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,ArrayDeclaration,StringLiteral,BooleanLiteral: a row that changes nothing adds 0 where it is written; leaving it out only saves the write
    .filter((row) => Object.entries(row).some(([name, value]) => typeof value === 'number' && value !== 0 && !['day', 'bucket'].includes(name)));
  // Stryker disable next-line MethodExpression: the order sessions are deleted in does not change what is left
  return { sessions, gone: [...gone].sort(), heads: headRows, days: changed(days), lengths: changed(lengths), paths: changed(paths) };
}
