/**
 * A small RFC 4180 CSV parser: comma-separated fields, double-quoted fields that may hold
 * commas, newlines and doubled quotes (`""`), CRLF, LF or CR line ends, an optional UTF-8 BOM.
 * Blank lines are skipped. A quote inside an unquoted field is kept as a character.
 */

/** One CSV record and the line it starts on (1-based), for error messages. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/** The text is not CSV; `line` is where the problem is. */
export class CsvError extends Error {
  override readonly name = 'CsvError';

  constructor(message: string, readonly line: number) {
    super(`line ${line}: ${message}`);
  }
}

const COMMA = 44;
const QUOTE = 34;
const CR = 13;
const LF = 10;

/** Parses CSV text into records. Throws `CsvError` for an unclosed quote or text after a closing quote. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let fields: string[] = [];
  let recordLine = 1;

  const endRecord = () => {
    if (!(fields.length === 1 && fields[0] === '')) records.push({ fields, line: recordLine });
    fields = [];
  };
  /** Consumes a line end at `i` if there is one; returns true when it did. */
  const lineEnd = (): boolean => {
    const c = text.charCodeAt(i);
    if (c === CR) i += text.charCodeAt(i + 1) === LF ? 2 : 1;
    else if (c === LF) i++;
    else return false;
    line++;
    return true;
  };

  while (i < n) {
    if (fields.length === 0) recordLine = line;
    let value: string;
    if (text.charCodeAt(i) === QUOTE) {
      const startLine = line;
      let parts = '';
      let from = ++i;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q === -1) throw new CsvError('a quoted field is never closed (a " is missing)', startLine);
        for (let k = from; k < q; k++) {
          const c = text.charCodeAt(k);
          if (c === LF || (c === CR && text.charCodeAt(k + 1) !== LF)) line++;
        }
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
      if (i < n && next !== COMMA && next !== CR && next !== LF) {
        throw new CsvError('unexpected text after a closing quote (quotes inside a quoted field must be doubled: "")', line);
      }
    } else {
      let end = i;
      while (end < n) {
        const c = text.charCodeAt(end);
        if (c === COMMA || c === CR || c === LF) break;
        end++;
      }
      value = text.slice(i, end);
      i = end;
    }
    fields.push(value);
    if (i >= n) break;
    if (text.charCodeAt(i) === COMMA) {
      i++;
      if (i >= n) fields.push('');
      else if (text.charCodeAt(i) === CR || text.charCodeAt(i) === LF) {
        fields.push('');
        lineEnd();
        endRecord();
      }
      continue;
    }
    lineEnd();
    endRecord();
  }
  if (fields.length > 0) endRecord();
  return records;
}
