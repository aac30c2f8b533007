/**
 * `import`: posts rows of a CSV or JSONL export (support tickets, survey answers, chat archives)
 * as universal-platform messages (spec point 6), through the `TrackingClient`.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { TrackingClient, TrackingDeliveryError, TrackingValidationError } from 'botbuilder-conversation-analytics';
import { PROGRAM, UsageError, baseUrlOption, defaultBaseUrl, parseCommandArgs, println, type CliIO, type Command } from './command.js';
import { CsvError } from './csv.js';
import { checkColumns, csvRows, jsonlRows, parseFieldMap, prepareRow, type PreparedRow, type SourceRow, type SourceRows } from './import-rows.js';
import { ProgressBar } from './progress.js';
import { maskRecordBody, parseMaskKinds } from '../store/mask.js';

const usage = `Usage: ${PROGRAM} import FILE [options]

Posts each row of FILE as a universal-platform message: support tickets, survey answers, chat
archives, CRM notes. A row becomes an incoming message (from the user) or, when its direction
column says outgoing/out, an outgoing one. Every row is checked against the spec first; rows
that break it are refused and listed, and the command then exits with 1.

Options:
  --url URL                Endpoint address (default env TRACKING_BASE_URL, else http://127.0.0.1:3979)
  --key KEY                The bot's API key (default env TRACKING_API_KEY)
  --format csv|jsonl       File format (default: from the extension, .csv or .jsonl/.ndjson)
  --delimiter CHAR         CSV: the character between fields (default ,); tab for a tab
  --map FIELD=COLUMN,...   Where each field is (default: the column of the same name). Fields:
                           text, userId, direction (incoming|outgoing, also in|out, user|bot,
                           customer|agent; default incoming),
                           intent (intent name), input.NAME (an intent input), conversationId,
                           timestamp (when it happened: ISO 8601 such as 2025-01-02T10:11:12Z or
                           2025-01-02 10:11:12+01:00, UTC when no offset is given; or epoch
                           seconds or milliseconds). Without one a row is filed when it is sent
  --dry-run                Check every row, send nothing
  --keep-card-numbers      Send payment card numbers as they are in FILE. By default each one (13-19
                           digits passing the Luhn check) is masked as •••• 1234 before it is sent
                           (the endpoint masks them again unless it runs with --keep-card-numbers).
                           PCI DSS RISK: card numbers would then cross the network and be stored
  --mask email,phone       Also mask email addresses and phone numbers before sending
  -h, --help               Show this help

A row that cannot be read (bad JSON, quotes that do not balance, a wrong number of fields) or
that breaks the spec is refused by its row number, and the import goes on with the next rows.
When the endpoint cannot be reached, the import stops after the first row that could not be
delivered, and says how many rows were sent before.

Example:
  ${PROGRAM} import tickets.csv --map text=body,userId=customer_id,direction=from,timestamp=created_at
  ${PROGRAM} import export.csv --delimiter ';'`;

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

/** `--delimiter`: one character other than a quote or a line end, or `tab` (also `\t`). */
function delimiterOption(value: string | undefined, format: 'csv' | 'jsonl'): string | undefined {
  if (value === undefined) return undefined;
  if (format !== 'csv') throw new UsageError('--delimiter is for CSV files; this one is read as JSON Lines.');
  const delimiter = value === 'tab' || value === '\\t' ? '\t' : value;
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\r' || delimiter === '\n') {
    throw new UsageError(`--delimiter takes one character (such as ';' or '|') or tab; got ${JSON.stringify(value)}.`);
  }
  return delimiter;
}

async function readRows(file: string, format: 'csv' | 'jsonl', delimiter: string | undefined): Promise<SourceRows> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return format === 'csv' ? csvRows(text, { delimiter }) : jsonlRows(text);
  } catch (error) {
    if (error instanceof CsvError) throw new Error(`${file} is not valid CSV: ${error.message}`);
    throw error;
  }
}

interface Outcome {
  sent: number;
  refused: { row: SourceRow; reason: string }[];
  failed: { row: SourceRow; reason: string }[];
  /** Set when the endpoint could not be reached: why, and the rows that were not sent. */
  stopped?: { why: string; notSent: SourceRow[] };
}

function failureReason(error: unknown): string {
  if (error instanceof TrackingDeliveryError) return `${error.reason}${error.status ? ` (HTTP ${error.status})` : ''}: ${error.message}`;
  return (error as Error)?.message ?? String(error);
}

/** Why the endpoint could not be reached, when `error` says no answer came back at all; else `undefined`. */
function unreachable(error: unknown): string | undefined {
  if (!(error instanceof TrackingDeliveryError) || error.status !== undefined) return undefined;
  if (error.reason !== 'retries-exhausted' && error.reason !== 'retry-budget-exceeded' && error.reason !== 'rejected') return undefined;
  const cause = error.cause as (Error & { code?: string }) | undefined;
  const code = cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused: nothing is listening there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'its host name does not resolve';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EHOSTDOWN') return 'its host cannot be reached';
  if (code === 'ETIMEDOUT' || cause?.name === 'TimeoutError') return 'it did not answer in time';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'it closed the connection without answering';
  return code ?? error.message;
}

/**
 * Sends prepared rows through the client, at most `window` at once, and tallies what happened.
 * When a row cannot be delivered because no answer came back (the endpoint is down or cannot be
 * reached), it sends nothing more: it gives up what the client still holds, and counts the rows
 * that were not sent.
 */
async function send(client: TrackingClient, prepared: PreparedRow[], outcome: Outcome, progress: ProgressBar, window = 256): Promise<void> {
  let settled = outcome.refused.length;
  const pending: Promise<void>[] = [];
  const notSent: SourceRow[] = [];
  const stop = (why: string) => {
    if (outcome.stopped) return;
    outcome.stopped = { why, notSent };
    // Gives up at once what the client still holds: those promises reject with `close-deadline`.
    void client.close(0);
  };
  for (const item of prepared) {
    if (!item.ok) continue;
    if (outcome.stopped) {
      notSent.push(item.row);
      continue;
    }
    const delivery = item.direction === 'incoming' ? client.universal.logIncoming(item.message) : client.universal.logOutgoing(item.message);
    pending.push(
      delivery.then(
        () => void outcome.sent++,
        (error: unknown) => {
          const why = unreachable(error);
          if (why !== undefined) stop(why);
          const givenUp = outcome.stopped !== undefined && error instanceof TrackingDeliveryError && (error.reason === 'close-deadline' || error.reason === 'client-closed');
          if (why !== undefined || givenUp) notSent.push(item.row);
          else if (error instanceof TrackingValidationError) outcome.refused.push({ row: item.row, reason: error.message });
          else outcome.failed.push({ row: item.row, reason: failureReason(error) });
        },
      ).finally(() => progress.update(++settled)),
    );
    if (pending.length >= window) await pending.shift();
  }
  await Promise.all(pending);
  if (outcome.stopped) notSent.sort((a, b) => a.row - b.row);
}

/** Row numbers as ranges: `4-10, 12, 15-20`, at most `max` ranges. */
function ranges(rows: readonly SourceRow[], max = 20): string {
  const parts: string[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1].row === rows[j].row + 1) j++;
    parts.push(i === j ? `${rows[i].row}` : `${rows[i].row}-${rows[j].row}`);
    i = j + 1;
  }
  return parts.length > max ? `${parts.slice(0, max).join(', ')}, … (${parts.length - max} more ranges)` : parts.join(', ');
}

function rowsWord(n: number): string {
  return `${n} row${n === 1 ? '' : 's'}`;
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
        delimiter: { type: 'string' },
        map: { type: 'string', multiple: true },
        'dry-run': { type: 'boolean' },
        'keep-card-numbers': { type: 'boolean' },
        mask: { type: 'string', multiple: true },
      },
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'give the FILE to import.' : `give one FILE; got ${positionals.length}.`);
    const file = positionals[0];
    const format = formatOf(file, values.format);
    const delimiter = delimiterOption(values.delimiter, format);
    const { map, explicit } = parseFieldMap(values.map ?? []);
    const mask = parseMaskKinds(values.mask ?? []);
    if ('error' in mask) throw new UsageError(mask.error);
    const masking = { keepCardNumbers: values['keep-card-numbers'] ?? false, mask };
    const baseUrl = baseUrlOption(values.url ?? defaultBaseUrl(io.env));
    const apiKey = values.key ?? io.env.TRACKING_API_KEY;
    if (!values['dry-run'] && !apiKey) throw new UsageError('give the bot\'s API key with --key, or set TRACKING_API_KEY.');

    const source = await readRows(file, format, delimiter);
    if (source.columns) checkColumns(map, explicit, source.columns);
    const now = Date.now();
    const prepared = source.rows.map((row) => prepareRow(row, map, basename(file), { timestampRequired: explicit.has('timestamp'), now }));
    // Card numbers (and, when asked, emails and phone numbers) never leave this machine.
    for (const item of prepared) if (item.ok) item.message = maskRecordBody(item.message, masking).value;
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
      const { stopped } = outcome;
      if (stopped) {
        println(io.stdout, `Stopped importing ${file} to ${baseUrl}: ${outcome.sent} sent, ${outcome.refused.length} refused, ${outcome.failed.length} failed, ${stopped.notSent.length} not sent.`);
        println(io.stderr, `Cannot reach the tracking endpoint at ${baseUrl} (${stopped.why}); the import stopped, and nothing more was sent.`);
        println(io.stderr, `  ${rowsWord(outcome.sent)} ${outcome.sent === 1 ? 'was' : 'were'} sent before it stopped; ${rowsWord(stopped.notSent.length)} ${stopped.notSent.length === 1 ? 'was' : 'were'} not sent: ${stopped.notSent.length === 1 ? 'row' : 'rows'} ${ranges(stopped.notSent)}.`);
        println(io.stderr, `  Start the endpoint (\`${PROGRAM} serve\`) or check --url, then import the rows that were not sent.`);
      } else {
        println(io.stdout, `Imported ${file} to ${baseUrl}: ${outcome.sent} sent, ${outcome.refused.length} refused, ${outcome.failed.length} failed.`);
      }
    }
    listRows(io, 'Refused rows (not sent):', outcome.refused);
    listRows(io, 'Failed rows (the endpoint did not accept them):', outcome.failed, 50);
    return outcome.refused.length + outcome.failed.length > 0 || outcome.stopped ? 1 : 0;
  },
};
