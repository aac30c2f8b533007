/** CSV export: what a spreadsheet reads back is what the view holds, and never a formula. */
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../../src/endpoint/api/export.js';

describe('CSV export', () => {
  it('quotes cells with commas, quotes and line breaks (RFC 4180), with CRLF line ends and a byte order mark', () => {
    expect(toCsv({ columns: ['text', 'n'], rows: [['a, "b"\nc', 2], [null, undefined]] })).toBe('\ufefftext,n\r\n"a, ""b""\nc",2\r\n,\r\n');
  });

  it('never lets a cell run as a formula: = + - @ and tab first are prefixed with a quote, numbers stay numbers', () => {
    const csv = toCsv({ columns: ['text'], rows: [['=HYPERLINK("http://evil","x")'], ['+1+1'], ['@SUM(A1)'], ['-2+3'], [-5], ['\tx'], ['ok']] });
    expect(csv.split('\r\n').slice(1, -1)).toEqual(['"\'=HYPERLINK(""http://evil"",""x"")"', "'+1+1", "'@SUM(A1)", "'-2+3", '-5', "'\tx", 'ok']);
  });

  it('writes objects as JSON', () => {
    expect(toCsv({ columns: ['o'], rows: [[{ a: 1 }]] })).toBe('\ufeffo\r\n"{""a"":1}"\r\n');
  });
});
