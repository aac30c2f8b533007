/**
 * Every view as JSON (the default) or CSV (`?format=csv`), so a team can take any figure into a
 * spreadsheet. A view gives its rows as a table, or as several named tables (`?table=`: one per
 * panel of the page); CSV cells that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`
 * first) are prefixed with `'`.
 */
import type { ServerResponse } from 'node:http';
import { sendError, sendJson } from '../http/respond.js';

/** A view's rows, flat: a header and one array of cells per row. */
export interface Table {
  columns: string[];
  rows: unknown[][];
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  // A negative number (-5, -2.5e3) stays a number; anything else starting like a formula is made text.
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The table as CSV (RFC 4180, CRLF line ends, UTF-8 with a byte order mark so spreadsheets read accents). */
export function toCsv(table: Table): string {
  const lines = [table.columns, ...table.rows].map((row) => row.map(cell).join(','));
  return `\ufeff${lines.join('\r\n')}\r\n`;
}

/** `format` query value: `json` (default) or `csv`; `undefined` for anything else. */
export function formatParam(query: URLSearchParams): 'json' | 'csv' | undefined {
  const format = query.get('format') ?? 'json';
  return format === 'json' || format === 'csv' ? format : undefined;
}

/** A view's tables for CSV: one, or several by name (the first is the default). */
export type Tables = (() => Table) | Readonly<Record<string, () => Table>>;

/**
 * Sends `body` as JSON (all of it), or one of its tables as a CSV download named `name`.csv, as
 * `?format=` asks. A view with several tables takes `?table=NAME` (the first when absent; the file
 * is then named `name`-`NAME`.csv). 400 for another format, or a table the view does not have.
 */
export function sendView(res: ServerResponse, query: URLSearchParams, name: string, body: unknown, tables: Tables): void {
  const format = formatParam(query);
  if (format === undefined) {
    return sendError(res, 400, 'format must be json or csv.', [{ path: 'format', expected: 'json or csv', received: JSON.stringify(String(query.get('format')).slice(0, 20)) }]);
  }
  const asked = query.get('table');
  let table: () => Table;
  let file = name;
  if (typeof tables === 'function') {
    table = tables;
  } else {
    const names = Object.keys(tables);
    if (asked !== null && !Object.hasOwn(tables, asked)) {
      return sendError(res, 400, `table must be one of ${names.join(', ')}.`, [{ path: 'table', expected: names.join(', '), received: JSON.stringify(asked.slice(0, 20)) }]);
    }
    table = tables[asked ?? names[0]];
    if (asked !== null) file = `${name}-${asked}`;
  }
  if (format === 'json') return sendJson(res, 200, body);
  const text = toCsv(table());
  res.writeHead(200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Content-Disposition': `attachment; filename="${file}.csv"`,
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}
