/** `transcript`: prints readable transcripts and the summary from a running endpoint. */
import type { TrackingSummary, TranscriptResponse, UsersResponse } from '../index.js';
import { PROGRAM, UsageError, baseUrlOption, defaultBaseUrl, intOption, parseCommandArgs, println, type Command } from './command.js';
import { getJson } from './read-api.js';
import { renderSummary, renderTranscript, transcriptTitle, userLabel, userNames } from './render.js';
import { summarizeEntries } from './summary.js';

/** The most entries the endpoint returns for one transcript (its own limit): asked for with --user or --conversation. */
const MAX_ENTRIES = 50_000;
/** The latest entries asked for of each user's transcript when listing users. */
const ENTRIES_PER_USER = 5_000;
/** Transcripts read at once. */
const READS_AT_ONCE = 8;
/** The users whose names are read for one transcript: as many as the page reads (`/api/users?limit=1000`). */
const NAMED_USERS = 1000;

const usage = `Usage: ${PROGRAM} transcript [options]

Prints transcripts (messages in and out, intents, buttons, clicks, images, events and revenue)
and a summary, read from a running endpoint (see \`serve\`).

Options:
  --url URL                Endpoint address (default env TRACKING_BASE_URL, else http://127.0.0.1:3979)
  --user ID                Only this user's transcript, and a summary of this user only
  --conversation ID        Only this conversation's transcript, and a summary of it only
  --limit N                At most N users, most recently active first (default 20; 0 = all).
                           The output says how many users it left out
  --token TOKEN            A reader token (--reader NAME=TOKEN on the endpoint), needed when the
                           endpoint is not on this machine or has readers (env TRACKING_READER_TOKEN).
                           Write keys cannot read
  --json                   Print the transcripts and the summary as JSON instead of text
  -h, --help               Show this help`;

/** Runs `task` over `items`, at most `atOnce` at a time; the results are in the order of `items`. */
async function mapAtMost<T, R>(items: readonly T[], atOnce: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return results;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The heading of a transcript: by conversation with its users, and how much of it is shown when the endpoint cut it. */
function titleOf(t: TranscriptResponse, known: ReadonlyMap<string, string>): string | undefined {
  let title: string | undefined;
  if (t.conversationId !== null) {
    const names = new Map([...known, ...userNames(t.entries)]);
    const users = [...new Set(t.entries.map((e) => e.userId).filter((id) => id !== ''))].map((id) => userLabel(id, names.get(id)));
    title = `Transcript of conversation ${t.conversationId}${users.length > 0 ? ` (${users.length === 1 ? 'user' : 'users'} ${users.join(', ')})` : ''}`;
  }
  if (t.total <= t.entries.length) return title;
  return `${title ?? transcriptTitle(t.entries, known)}: the latest ${t.entries.length} of ${t.total} entries`;
}

export const transcriptCommand: Command = {
  name: 'transcript',
  summary: 'print transcripts and a summary from a running endpoint',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      options: {
        url: { type: 'string' },
        user: { type: 'string' },
        conversation: { type: 'string' },
        limit: { type: 'string' },
        token: { type: 'string' },
        // Not an option of its own: a write key cannot read, so say what to give instead of "Unknown option".
        key: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    if (values.key !== undefined) {
      throw new UsageError('--key is a write key, and write keys cannot read: give a reader token with --token TOKEN (or env TRACKING_READER_TOKEN), one the endpoint was started with as --reader NAME=TOKEN.');
    }
    if (values.user !== undefined && values.conversation !== undefined) throw new UsageError('give --user or --conversation, not both.');
    if (values.limit !== undefined && (values.user !== undefined || values.conversation !== undefined)) {
      throw new UsageError(`--limit is the number of users to show; it does not go with --${values.user !== undefined ? 'user' : 'conversation'}.`);
    }
    const baseUrl = baseUrlOption(values.url ?? defaultBaseUrl(io.env));
    const key = values.token ?? (io.env.TRACKING_READER_TOKEN || undefined);
    const limit = intOption('limit', values.limit, 0) ?? 20;
    const read = <T>(path: string) => getJson<T>(baseUrl, path, key);

    let transcripts: TranscriptResponse[];
    let summary: TrackingSummary;
    let summaryTitle: string | undefined;
    /** Users listed, and users the endpoint knows (more when --limit left some out). */
    let shown = 0;
    let total = 0;
    // Users' names from the users list, for those whose records carry none (a Messenger user's): as the page shows them.
    const names = new Map<string, string>();
    if (values.user !== undefined || values.conversation !== undefined) {
      // /api/summary takes no user or conversation: the summary is counted from the transcript.
      const [param, id] = values.user !== undefined ? ['user', values.user] : ['conversation', values.conversation as string];
      const [transcript, list] = await Promise.all([
        read<TranscriptResponse>(`/api/transcript?${param}=${encodeURIComponent(id)}&limit=${MAX_ENTRIES}`),
        read<UsersResponse>(`/api/users?limit=${NAMED_USERS}`),
      ]);
      for (const user of list.users) if (user.name && !names.has(user.userId)) names.set(user.userId, user.name);
      transcripts = [transcript];
      summary = summarizeEntries(transcript.entries);
      const name = param === 'user' ? userNames(transcript.entries).get(id) : undefined;
      const partial = transcript.total > transcript.entries.length ? ` (its latest ${transcript.entries.length} of ${transcript.total} entries)` : '';
      summaryTitle = `Summary of ${name !== undefined ? `${name} (user ${id})` : `${param} ${id}`}${partial}`;
    } else {
      const list = await read<UsersResponse>(`/api/users?limit=${limit === 0 ? Number.MAX_SAFE_INTEGER : limit}`);
      const { users } = list;
      for (const user of users) if (user.name) names.set(user.userId, user.name);
      [shown, total] = [users.length, Math.max(list.total, users.length)];
      // A user of two bots is listed once per bot; their transcript holds both.
      const ids = [...new Set(users.map((u) => u.userId))];
      transcripts = await mapAtMost(ids, READS_AT_ONCE, (id) => read<TranscriptResponse>(`/api/transcript?user=${encodeURIComponent(id)}&limit=${ENTRIES_PER_USER}`));
      summary = await read<TrackingSummary>('/api/summary');
    }
    const notShown = total - shown;

    if (values.json) {
      println(io.stdout, JSON.stringify({ transcripts, summary, ...(notShown > 0 ? { usersNotShown: notShown } : {}) }, null, 2));
      return 0;
    }
    if (transcripts.length === 0) println(io.stdout, `No records yet at ${baseUrl}.\n`);
    for (const t of transcripts) println(io.stdout, `${renderTranscript(t.entries, { title: titleOf(t, names), names })}\n`);
    if (notShown > 0) {
      println(io.stdout, `${plural(notShown, 'more user')} not shown (showing the ${shown} most recently active of ${total}): --limit 0 shows all, --user ID shows one.\n`);
    }
    println(io.stdout, renderSummary(summary, { title: summaryTitle }));
    return 0;
  },
};
