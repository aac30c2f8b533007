/**
 * A small RFC 4180 CSV parser: delimited fields (a comma by default; `;`, a tab or any other
 * character on request), double-quoted fields that may hold delimiters, newlines and doubled
 * quotes (`""`), CRLF, LF or CR line ends, an optional UTF-8 BOM. Blank lines are skipped. A quote
 * inside an unquoted field is kept as a character.
 *
 * A record whose quotes do not balance (a quoted field never closed, or text after a closing
 * quote) does not stop the parse: it comes back with `error` set and no fields, and reading goes
 * on at the line after the one it starts on.
 */

/** One CSV record and the line it starts on (1-based), for error messages. */
export interface CsvRecord {
  fields: string[];
  line: number;
  /** Set when the record could not be read (its quotes do not balance); `fields` is then empty. */
  error?: string;
}

/** Options of `parseCsv`. */
export interface CsvOptions {
  /** The character between fields. Default `,`. Any single character but `"`, CR and LF. */
  delimiter?: string;
}

/** The text is not CSV; `line` is where the problem is. */
export class CsvError extends Error {
  override readonly name = 'CsvError';

  constructor(message: string, readonly line: number) {
    super(`line ${line}: ${message}`);
  }
}

/** A line end: CRLF, CR or LF. */
const LINE_END = /\r\n|\r|\n/g;
const QUOTE = 34;
const CR = 13;
const LF = 10;

/** What the record reader saw: a record and where the next one starts, or why it is not one. */
type ReadResult = { fields: string[]; next: number; line: number } | { error: string };

const UNCLOSED = 'a quoted field opened on this line is never closed (no closing " follows)';
const AFTER_QUOTE = 'text follows the closing " of a quoted field (a " inside a quoted field must be doubled: "")';
const RUNS_ON = (line: number) => `a quoted field opened on this line is not closed on it (the next " is on line ${line}, and text follows it)`;

/** Reads the record that starts at `i` on line `line`. */
function readRecord(text: string, start: number, startLine: number, delimiter: number): ReadResult {
  const n = text.length;
  const fields: string[] = [];
  let i = start;
  let line = startLine;
  for (;;) {
    let value: string;
    if (text.charCodeAt(i) === QUOTE) {
      const fieldLine = line;
      let parts = '';
      let from = ++i;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q === -1) return { error: UNCLOSED };
        line += text.slice(from, q).match(LINE_END)?.length ?? 0;
        if (text.charCodeAt(q + 1) === QUOTE) {
          parts += text.slice(from, q + 1);
          from = q + 2;
          continue;
        }
        value = parts + text.slice(from, q);
        i = q + 1;
        break;
      }
      const next = text.charCodeAt(i);
      if (i < n && next !== delimiter && next !== CR && next !== LF) return { error: line > fieldLine ? RUNS_ON(line) : AFTER_QUOTE };
    } else {
      let end = i;
      // i is at most n (a delimiter was just passed, or a record starts before the end).
      while (end !== n) {
        const c = text.charCodeAt(end);
        if (c === delimiter || c === CR || c === LF) break;
        end++;
      }
      value = text.slice(i, end);
      i = end;
    }
    fields.push(value);
    const c = text.charCodeAt(i);
    if (c === delimiter) {
      i++;
      continue;
    }
    // A line end, or the end of the text (then next is past it, where the parse stops).
    return { fields, next: i + (c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1), line: line + 1 };
  }
}

/** Where the line after the one `i` is on starts (the end of the text when it is the last). */
function nextLine(text: string, i: number): number {
  const lineEnd = new RegExp(LINE_END.source, 'g');
  lineEnd.lastIndex = i;
  const found = lineEnd.exec(text);
  return found === null ? text.length : found.index + found[0].length;
}

/** The delimiter's character code; throws `RangeError` for anything but one character other than `"`, CR and LF. */
function delimiterCode(delimiter: string): number {
  const code = delimiter.charCodeAt(0);
  if (delimiter.length !== 1 || code === QUOTE || code === CR || code === LF) {
    throw new RangeError(`The CSV delimiter must be one character other than ", CR and LF; got ${JSON.stringify(delimiter)}.`);
  }
  return code;
}

/**
 * Parses CSV text into records. Never throws for bad text: a record whose quotes do not balance
 * is returned with `error` set, and reading goes on at the next line. Throws `RangeError` for a
 * delimiter that is not one character other than `"`, CR and LF.
 */
export function parseCsv(text: string, options: CsvOptions = {}): CsvRecord[] {
  const delimiter = delimiterCode(options.delimiter ?? ',');
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < n) {
    const read = readRecord(text, i, line, delimiter);
    if ('error' in read) {
      records.push({ fields: [], line, error: read.error });
      i = nextLine(text, i);
      line++;
      continue;
    }
    if (!(read.fields.length === 1 && read.fields[0] === '')) records.push({ fields: read.fields, line });
    i = read.next;
    line = read.line;
  }
  return records;
}
