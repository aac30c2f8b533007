/**
 * Sessions, kept as records arrive: a session is one user's stretch in one conversation with no
 * gap over 30 minutes (so a long-lived conversation, such as a Messenger thread, is one session
 * per visit). Each new entry extends its user's latest session in that conversation when it falls
 * within 30 minutes of it, else starts a new one. The first steps of each session (the intents of
 * what the user said, and the events) are kept as its path.
 */
import type { Transaction } from 'kysely';
import type { Database, EntriesTable, SessionDaysTable, SessionHeadsTable, SessionLengthsTable, SessionPathsTable, SessionsTable } from './schema.js';

/** A pause longer than this ends a session. */
export const SESSION_GAP_MS = 30 * 60_000;
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

interface Session extends SessionsTable {
  pathSteps: string[];
}

const keyOf = (bot: string, user: string, conversation: string) => `${bot}\u0000${user}\u0000${conversation}`;

function extend(session: Session, entry: EntriesTable): void {
  session.start_at = Math.min(session.start_at, entry.occurred_at);
  session.last_at = Math.max(session.last_at, entry.occurred_at);
  if (entry.direction === 'event') session.events++;
  else session.messages++;
  const step = stepOf(entry);
  if (step !== undefined && session.pathSteps.length < MAX_PATH_STEPS && session.pathSteps[session.pathSteps.length - 1] !== step) session.pathSteps.push(step);
}

/**
 * The sessions (new and changed) and session heads that a batch's entries make, reading the
 * latest session of each user and conversation in the batch from `trx`. On PostgreSQL those rows
 * are locked until the transaction ends (`lockRows`), so two endpoints never extend one session
 * at once.
 */
export async function sessionRows(trx: Transaction<Database>, entries: readonly EntriesTable[], lockRows: boolean): Promise<{
  sessions: SessionsTable[];
  heads: SessionHeadsTable[];
  /** Changes to the per-day sessions table (to add: negative where a session moved out of a row). */
  days: SessionDaysTable[];
  /** Changes to the length histogram (likewise). */
  lengths: SessionLengthsTable[];
  /** Changes to the sessions per path (likewise). */
  paths: SessionPathsTable[];
}> {
  const tracked = entries.filter((entry) => entry.user_id !== '' && entry.conversation_id !== '');
  if (tracked.length === 0) return { sessions: [], heads: [], days: [], lengths: [], paths: [] };
  const keys = new Map<string, [string, string, string]>();
  for (const entry of tracked) keys.set(keyOf(entry.bot, entry.user_id, entry.conversation_id), [entry.bot, entry.user_id, entry.conversation_id]);

  const heads = new Map<string, Session>();
  const tuples = [...keys.values()].sort();
  for (let i = 0; i < tuples.length; i += 300) {
    const part = tuples.slice(i, i + 300);
    const rows = await trx.selectFrom('session_heads as h')
      .innerJoin('sessions as s', 's.id', 'h.session_id')
      .selectAll('s')
      .where((eb) => eb(eb.refTuple('h.bot', 'h.user_id', 'h.conversation_id'), 'in', part.map(([b, u, c]) => eb.tuple(b, u, c))))
      .$if(lockRows, (q) => q.forUpdate())
      .execute();
    for (const row of rows) {
      heads.set(keyOf(row.bot, row.user_id, row.conversation_id), { pathSteps: JSON.parse(row.path) as string[], ...row, start_at: Number(row.start_at), last_at: Number(row.last_at), messages: Number(row.messages), events: Number(row.events), steps: Number(row.steps) });
    }
  }

  // What each session read from the database added to the per-day tables before this batch.
  const before = new Map<string, Contribution>();
  for (const head of heads.values()) before.set(head.id, contributionOf(head));
  const touched = new Map<string, Session>();
  const ordered = [...tracked].sort((a, b) => a.occurred_at - b.occurred_at || a.seq - b.seq || a.idx - b.idx);
  for (const entry of ordered) {
    const key = keyOf(entry.bot, entry.user_id, entry.conversation_id);
    const head = heads.get(key);
    if (head !== undefined && entry.occurred_at >= head.start_at - SESSION_GAP_MS && entry.occurred_at <= head.last_at + SESSION_GAP_MS) {
      extend(head, entry);
      touched.set(head.id, head);
      continue;
    }
    const session: Session = {
      id: `${entry.seq}:${entry.idx}`, bot: entry.bot, user_id: entry.user_id, conversation_id: entry.conversation_id, platform: entry.platform, channel: entry.channel,
      start_at: entry.occurred_at, last_at: entry.occurred_at, messages: 0, events: 0, path: '[]', steps: 0, pathSteps: [],
    };
    extend(session, entry);
    touched.set(session.id, session);
    // An entry older than the latest session (an import of history) starts a session of its own without displacing it.
    if (head === undefined || session.last_at >= head.last_at) heads.set(key, session);
  }

  const sessions = [...touched.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map(({ pathSteps, ...row }) => ({ ...row, path: JSON.stringify(pathSteps), steps: pathSteps.length }));
  const headRows = [...keys.keys()].sort().flatMap((key) => {
    const head = heads.get(key);
    return head === undefined || !touched.has(head.id) ? [] : [{ bot: head.bot, user_id: head.user_id, conversation_id: head.conversation_id, session_id: head.id }];
  });
  // The per-day tables change by what each touched session adds now, less what it added before.
  const days = new Map<string, SessionDaysTable>();
  const lengths = new Map<string, SessionLengthsTable>();
  const paths = new Map<string, SessionPathsTable>();
  const add = (session: Session, part: Contribution, sign: 1 | -1) => {
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
  for (const session of touched.values()) {
    const old = before.get(session.id);
    if (old !== undefined) add(session, old, -1);
    add(session, contributionOf(session), 1);
  }
  const changed = <T extends { sessions: number }>(rows: Map<string, T>) => [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row)
    .filter((row) => Object.entries(row).some(([name, value]) => typeof value === 'number' && value !== 0 && !['day', 'bucket'].includes(name)));
  return { sessions, heads: headRows, days: changed(days), lengths: changed(lengths), paths: changed(paths) };
}
