/**
 * `import`: posts rows of a CSV or JSONL export (support tickets, survey answers, chat archives)
 * as universal-platform messages (spec point 6), through the `TrackingClient`.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { TrackingClient, TrackingDeliveryError, TrackingValidationError } from '../client/index.js';
import { PROGRAM, UsageError, baseUrlOption, defaultBaseUrl, parseCommandArgs, println, type CliIO, type Command } from './command.js';
import { CsvError } from './csv.js';
import { checkColumns, csvRows, jsonlRows, parseFieldMap, prepareRow, type PreparedRow, type SourceRow, type SourceRows } from './import-rows.js';
import { ProgressBar } from './progress.js';

const usage = `Usage: ${PROGRAM} import FILE [options]

Posts each row of FILE as a universal-platform message: support tickets, survey answers, chat
archives, CRM notes. A row becomes an incoming message (from the user) or, when its direction
column says outgoing/out, an outgoing one. Every row is checked against the spec first; rows
that break it are refused and listed, and the command then exits with 1.

Options:
  --url URL                Endpoint address (default env TRACKING_BASE_URL, else http://127.0.0.1:3979)
  --key KEY                The bot's API key (default env TRACKING_API_KEY)
  --format csv|jsonl       File format (default: from the extension, .csv or .jsonl/.ndjson)
  --map FIELD=COLUMN,...   Where each field is (default: the column of the same name). Fields:
                           text, userId, direction (incoming|outgoing, also in|out, user|bot,
                           customer|agent; default incoming),
                           intent (intent name), input.NAME (an intent input), conversationId
  --dry-run                Check every row, send nothing
  -h, --help               Show this help

Example:
  ${PROGRAM} import tickets.csv --map text=body,userId=customer_id,direction=from`;

function formatOf(file: string, format: string | undefined): 'csv' | 'jsonl' {
  if (format !== undefined) {
    if (format === 'csv' || format === 'jsonl') return format;
    throw new UsageError(`--format must be csv or jsonl; got "${format}".`);
  }
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson' || ext === '.json') return 'jsonl';
  throw new UsageError(`cannot tell the format of ${file} from its extension; pass --format csv or --format jsonl.`);
}

async function readRows(file: string, format: 'csv' | 'jsonl'): Promise<SourceRows> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return format === 'csv' ? csvRows(text) : jsonlRows(text);
  } catch (error) {
    if (error instanceof CsvError) throw new Error(`${file} is not valid CSV: ${error.message}`);
    throw error;
  }
}

interface Outcome {
  sent: number;
  refused: { row: SourceRow; reason: string }[];
  failed: { row: SourceRow; reason: string }[];
}

function failureReason(error: unknown): string {
  if (error instanceof TrackingDeliveryError) return `${error.reason}${error.status ? ` (HTTP ${error.status})` : ''}: ${error.message}`;
  return (error as Error)?.message ?? String(error);
}

/** Sends prepared rows through the client, at most `window` at once, and tallies what happened. */
async function send(client: TrackingClient, prepared: PreparedRow[], outcome: Outcome, progress: ProgressBar, window = 256): Promise<void> {
  let settled = outcome.refused.length;
  const pending: Promise<void>[] = [];
  for (const item of prepared) {
    if (!item.ok) continue;
    const delivery = item.direction === 'incoming' ? client.universal.logIncoming(item.message) : client.universal.logOutgoing(item.message);
    pending.push(
      delivery.then(
        () => void outcome.sent++,
        (error: unknown) => {
          if (error instanceof TrackingValidationError) outcome.refused.push({ row: item.row, reason: error.message });
          else outcome.failed.push({ row: item.row, reason: failureReason(error) });
        },
      ).finally(() => progress.update(++settled)),
    );
    if (pending.length >= window) await pending.shift();
  }
  await Promise.all(pending);
}

function listRows(io: CliIO, heading: string, rows: Outcome['refused'], max = Infinity): void {
  if (rows.length === 0) return;
  println(io.stderr, heading);
  const sorted = [...rows].sort((a, b) => a.row.row - b.row.row);
  for (const { row, reason } of sorted.slice(0, max)) println(io.stderr, `  row ${row.row} (line ${row.line}): ${reason}`);
  if (sorted.length > max) println(io.stderr, `  … and ${sorted.length - max} more`);
}

export const importCommand: Command = {
  name: 'import',
  summary: 'post rows of a CSV or JSONL file (tickets, surveys, chat archives) as universal messages',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        format: { type: 'string' },
        map: { type: 'string', multiple: true },
        'dry-run': { type: 'boolean' },
      },
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'give the FILE to import.' : `give one FILE; got ${positionals.length}.`);
    const file = positionals[0];
    const format = formatOf(file, values.format);
    const { map, explicit } = parseFieldMap(values.map ?? []);
    const baseUrl = baseUrlOption(values.url ?? defaultBaseUrl(io.env));
    const apiKey = values.key ?? io.env.TRACKING_API_KEY;
    if (!values['dry-run'] && !apiKey) throw new UsageError('give the bot\'s API key with --key, or set TRACKING_API_KEY.');

    const source = await readRows(file, format);
    if (source.columns) checkColumns(map, explicit, source.columns);
    const prepared = source.rows.map((row) => prepareRow(row, map, basename(file)));
    const outcome: Outcome = { sent: 0, refused: [], failed: [] };
    for (const item of prepared) if (!item.ok) outcome.refused.push({ row: item.row, reason: item.reason });
    const valid = prepared.length - outcome.refused.length;

    if (values['dry-run']) {
      println(io.stdout, `Checked ${file}: ${valid} row${valid === 1 ? '' : 's'} would be sent, ${outcome.refused.length} refused.`);
    } else {
      const client = new TrackingClient({ apiKey, baseUrl, logger: false, onError: () => undefined, maxRetryDurationMs: 15_000 });
      const progress = new ProgressBar(io.stderr, prepared.length, `Importing ${basename(file)}`);
      try {
        await send(client, prepared, outcome, progress);
      } finally {
        await client.close();
        progress.done();
      }
      println(io.stdout, `Imported ${file} to ${baseUrl}: ${outcome.sent} sent, ${outcome.refused.length} refused, ${outcome.failed.length} failed.`);
    }
    listRows(io, 'Refused rows (not sent):', outcome.refused);
    listRows(io, 'Failed rows (the endpoint did not accept them):', outcome.failed, 50);
    return outcome.refused.length + outcome.failed.length > 0 ? 1 : 0;
  },
};
