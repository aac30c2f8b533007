/**
 * Turning rows of a CSV or JSONL export (support tickets, survey answers, chat archives) into
 * universal-platform messages, and checking each against the spec before anything is sent.
 */
import { isPlainObject, validate, type Intent, type Message, type ValidationIssue } from 'botbuilder-conversation-analytics/protocol';
import { UsageError } from './command.js';
import { CsvError, parseCsv, type CsvOptions } from './csv.js';
import { TIMESTAMP_FORMS, parseTimestamp } from './timestamp.js';

/** One row of the source file. */
export interface SourceRow {
  /** 1-based number of the data row (the CSV header is not counted). */
  row: number;
  /** 1-based line of the file the row starts on. */
  line: number;
  /** Column (or field) name → value. */
  values: Record<string, unknown>;
  /** Set when the row could not be read at all (not JSON, quotes that do not balance, wrong number of CSV fields). */
  error?: string;
}

/** The rows of a file, and the column names when the format has a header. */
export interface SourceRows {
  rows: SourceRow[];
  columns?: string[];
}

/**
 * Reads CSV text: the first record is the header. A row that cannot be read (its quotes do not
 * balance, or it has another number of fields than the header) comes back with `error` set, and
 * the rows after it are read as usual. Throws `CsvError` when the header itself cannot be read.
 */
export function csvRows(text: string, options: CsvOptions = {}): SourceRows {
  const [header, ...records] = parseCsv(text, options);
  if (!header) return { rows: [], columns: [] };
  if (header.error !== undefined) throw new CsvError(`the header row cannot be read: ${header.error}`, header.line);
  const columns = header.fields.map((name) => name.trim());
  const rows = records.map((record, index): SourceRow => {
    const values: Record<string, unknown> = Object.create(null);
    columns.forEach((column, i) => {
      if (!(column in values)) values[column] = record.fields[i];
    });
    const row: SourceRow = { row: index + 1, line: record.line, values };
    if (record.error !== undefined) row.error = `${record.error}; the row was skipped, and reading went on at line ${record.line + 1}`;
    else if (record.fields.length !== columns.length) row.error = `has ${record.fields.length} fields but the header has ${columns.length}`;
    return row;
  });
  return { rows, columns };
}

/** Reads JSONL text: one JSON object per line; blank lines are skipped. */
export function jsonlRows(text: string): SourceRows {
  const rows: SourceRow[] = [];
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, index) => {
    if (raw.trim() === '') return;
    const row: SourceRow = { row: rows.length + 1, line: index + 1, values: Object.create(null) };
    try {
      const value: unknown = JSON.parse(raw);
      if (isPlainObject(value)) Object.assign(row.values, value);
      else row.error = 'is not a JSON object';
    } catch {
      row.error = 'is not valid JSON';
    }
    rows.push(row);
  });
  return { rows };
}

/** Which column (or JSON field) holds each part of a message. */
export interface FieldMap {
  text: string;
  userId: string;
  direction: string;
  intent: string;
  conversationId: string;
  /** When it happened (see `parseTimestamp` for the forms it takes). */
  timestamp: string;
  /** Intent input name → column. */
  inputs: Record<string, string>;
}

const FIELDS = ['text', 'userId', 'direction', 'intent', 'conversationId', 'timestamp'] as const;

/**
 * Reads `--map` values such as `text=body,userId=customer,input.size=size`. Fields not mapped
 * read the column of the same name. Throws `UsageError` for a malformed pair or an unknown field.
 */
export function parseFieldMap(specs: readonly string[]): { map: FieldMap; explicit: Set<string> } {
  const map: FieldMap = { text: 'text', userId: 'userId', direction: 'direction', intent: 'intent', conversationId: 'conversationId', timestamp: 'timestamp', inputs: {} };
  const explicit = new Set<string>();
  for (const pair of specs.flatMap((spec) => spec.split(',')).map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    const field = pair.slice(0, eq).trim();
    const column = pair.slice(eq + 1).trim();
    if (eq <= 0 || column === '') throw new UsageError(`--map takes field=column pairs, such as text=body,userId=customer; got "${pair}".`);
    if (field.startsWith('input.') && field.length > 6) map.inputs[field.slice(6)] = column;
    else if ((FIELDS as readonly string[]).includes(field)) map[field as (typeof FIELDS)[number]] = column;
    else throw new UsageError(`--map: unknown field "${field}"; the fields are ${FIELDS.join(', ')} and input.NAME.`);
    explicit.add(field);
  }
  return { map, explicit };
}

/**
 * Checks a field map against a CSV header: text and userId must have a column, and so must every
 * field mapped explicitly. Throws `UsageError` naming the missing column and the columns there are.
 */
export function checkColumns(map: FieldMap, explicit: ReadonlySet<string>, columns: readonly string[]): void {
  const needed: [string, string][] = FIELDS.filter((field) => field === 'text' || field === 'userId' || explicit.has(field)).map((field) => [field, map[field]]);
  for (const [name, column] of Object.entries(map.inputs)) needed.push([`input.${name}`, column]);
  for (const [field, column] of needed) {
    if (!columns.includes(column)) {
      const delimiter = columns.length === 1 ? [';', '\t', '|'].find((d) => columns[0].includes(d)) : undefined;
      const hint = delimiter === undefined ? '' : ` (its header looks ${delimiter === '\t' ? 'tab' : `"${delimiter}"`}-separated: pass --delimiter ${delimiter === '\t' ? 'tab' : `'${delimiter}'`})`;
      throw new UsageError(`the file has no column "${column}" for ${field}; its columns are ${columns.map((c) => JSON.stringify(c)).join(', ')}${hint}. Map one with --map ${field}=COLUMN.`);
    }
  }
}

/** A row ready to send, or the reason it is refused. */
export type PreparedRow =
  | { ok: true; row: SourceRow; direction: 'incoming' | 'outgoing'; message: Message }
  | { ok: false; row: SourceRow; reason: string };

function asText(value: unknown): unknown {
  return Number.isFinite(value) ? String(value) : value;
}

function directionOf(value: unknown): 'incoming' | 'outgoing' | undefined {
  const word = typeof value === 'string' ? value.trim().toLowerCase() : value === undefined || value === null ? '' : '?';
  if (['', 'incoming', 'in', 'inbound', 'user', 'customer'].includes(word)) return 'incoming';
  if (['outgoing', 'out', 'outbound', 'bot', 'agent'].includes(word)) return 'outgoing';
  return undefined;
}

function intentOf(value: unknown, values: Record<string, unknown>, map: FieldMap): unknown {
  if (typeof value !== 'string') return value ?? undefined;
  if (value === '') return undefined;
  const inputs = Object.entries(map.inputs)
    .map(([name, column]) => ({ name, value: asText(values[column]) }))
    .filter((input) => input.value !== undefined && input.value !== '');
  return { name: value.trim(), inputs } as Intent;
}

function explain(issue: ValidationIssue, map: FieldMap): string {
  const top = issue.path.split(/[.[]/)[0];
  const column = (FIELDS as readonly string[]).includes(top) && map[top as (typeof FIELDS)[number]] !== top ? ` (column "${map[top as (typeof FIELDS)[number]]}")` : '';
  return issue.received === 'missing'
    ? `${issue.path}${column} is required but missing`
    : `${issue.path}${column}: expected ${issue.expected}, got ${issue.received}`;
}

/** Options of `prepareRow`. */
export interface PrepareOptions {
  /** The timestamp column was mapped with `--map`: a row without a time is refused rather than filed when it is received. */
  timestampRequired?: boolean;
  /** The current time (epoch ms), for the check that a time is not in the future. Default `Date.now()`. */
  now?: number;
}

function columnNote(field: (typeof FIELDS)[number], map: FieldMap): string {
  return map[field] !== field ? ` (column "${map[field]}")` : '';
}

/** The row's time as ISO 8601, `undefined` when it has none, or the reason it is refused. */
function timestampOf(values: Record<string, unknown>, map: FieldMap, options: PrepareOptions): { iso?: string; reason?: string } {
  const value = values[map.timestamp];
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    return options.timestampRequired ? { reason: `timestamp${columnNote('timestamp', map)} is required but missing (expected ${TIMESTAMP_FORMS})` } : {};
  }
  const parsed = parseTimestamp(value, options.now);
  if (!parsed.ok) return { reason: `timestamp${columnNote('timestamp', map)}: expected ${parsed.expected}, got ${parsed.received}` };
  return { iso: new Date(parsed.ms).toISOString() };
}

/**
 * Builds the universal-platform message of a row and checks it against the spec. The whole
 * source row goes into `platformJson.original`, with where it came from in `platformJson.source`;
 * its time, when it has one, into `platformJson.timestamp` (ISO 8601, UTC), which is where the
 * endpoint reads when a message happened.
 */
export function prepareRow(row: SourceRow, map: FieldMap, file: string, options: PrepareOptions = {}): PreparedRow {
  if (row.error) return { ok: false, row, reason: row.error };
  const { values } = row;
  const reasons: string[] = [];
  const direction = directionOf(values[map.direction]);
  if (!direction) reasons.push(`${map.direction}: expected incoming or outgoing (also in/out, user/bot, customer/agent), got ${JSON.stringify(values[map.direction])}`);
  const time = timestampOf(values, map, options);
  if (time.reason !== undefined) reasons.push(time.reason);
  const conversationId = asText(values[map.conversationId]);
  const platformJson: Record<string, unknown> = { source: { file, row: row.row, line: row.line }, original: { ...values } };
  if (typeof conversationId === 'string' && conversationId !== '') platformJson.conversation = { id: conversationId };
  if (time.iso !== undefined) platformJson.timestamp = time.iso;
  const message = { text: asText(values[map.text]), userId: asText(values[map.userId]), platformJson } as Message;
  const intent = intentOf(values[map.intent], values, map);
  if (intent !== undefined) message.intent = intent as Intent;
  // Stryker disable next-line StringLiteral,LogicalOperator: a universal message has one schema for both directions (and schemaFor reads any kind but messenger as universal).
  reasons.push(...validate('universal', direction ?? 'incoming', message).map((issue) => explain(issue, map)));
  if (reasons.length > 0 || !direction) return { ok: false, row, reason: reasons.join('; ') };
  return { ok: true, row, direction, message };
}
