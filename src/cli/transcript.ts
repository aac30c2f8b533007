/** `transcript`: prints readable transcripts and the summary from a running endpoint. */
import type { TrackingSummary, TranscriptResponse, UsersResponse } from '../endpoint/index.js';
import { PROGRAM, UsageError, baseUrlOption, defaultBaseUrl, intOption, parseCommandArgs, println, type Command } from './command.js';
import { getJson } from './read-api.js';
import { renderSummary, renderTranscript } from './render.js';

const usage = `Usage: ${PROGRAM} transcript [options]

Prints transcripts (messages in and out, intents, buttons, clicks, images, events and revenue)
and a summary, read from a running endpoint (see \`serve\`).

Options:
  --url URL                Endpoint address (default env TRACKING_BASE_URL, else http://127.0.0.1:3979)
  --user ID                Only this user's transcript
  --conversation ID        Only this conversation's transcript
  --limit N                At most N users, most recently active first (default 20)
  --key KEY                API key, needed when the endpoint is not on this machine (env TRACKING_API_KEY)
  --json                   Print the JSON the endpoint returned instead of text
  -h, --help               Show this help`;

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
        key: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    if (values.user !== undefined && values.conversation !== undefined) throw new UsageError('give --user or --conversation, not both.');
    const baseUrl = baseUrlOption(values.url ?? defaultBaseUrl(io.env));
    const key = values.key ?? io.env.TRACKING_API_KEY;
    const limit = intOption('limit', values.limit, 1) ?? 20;
    const read = <T>(path: string) => getJson<T>(baseUrl, path, key);

    let transcripts: TranscriptResponse[];
    if (values.user !== undefined) transcripts = [await read<TranscriptResponse>(`/api/transcript?user=${encodeURIComponent(values.user)}`)];
    else if (values.conversation !== undefined) transcripts = [await read<TranscriptResponse>(`/api/transcript?conversation=${encodeURIComponent(values.conversation)}`)];
    else {
      const { users } = await read<UsersResponse>(`/api/users?limit=${limit}`);
      transcripts = await Promise.all(users.map((u) => read<TranscriptResponse>(`/api/transcript?user=${encodeURIComponent(u.userId)}`)));
    }
    const summary = await read<TrackingSummary>('/api/summary');

    if (values.json) {
      println(io.stdout, JSON.stringify({ transcripts, summary }, null, 2));
      return 0;
    }
    if (transcripts.length === 0) println(io.stdout, `No records yet at ${baseUrl}.\n`);
    for (const t of transcripts) {
      const title = t.conversationId !== null ? `Transcript of conversation ${t.conversationId}` : undefined;
      println(io.stdout, `${renderTranscript(t.entries, { title })}\n`);
    }
    println(io.stdout, renderSummary(summary));
    return 0;
  },
};
