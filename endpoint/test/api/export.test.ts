/** CSV export: what a spreadsheet reads back is what the view holds, and never a formula. */
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../src/api/export.js';

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

describe('CSV cells', () => {
  const cells = (...values: unknown[]) => toCsv({ columns: ['v'], rows: values.map((value) => [value]) }).slice(1).split('\r\n').slice(1, -1);

  it('prefixes only text that starts like a formula: = + - @, a tab or a carriage return first', () => {
    expect(cells('=1', '+5', '@x', '-x', '\tx', '\ry')).toEqual(["'=1", "'+5", "'@x", "'-x", "'\tx", '"\'\ry"']);
    expect(cells('a=b', 'x-y', 'a+b', 'me@example.com', 'x\ty', '5-3')).toEqual(['a=b', 'x-y', 'a+b', 'me@example.com', 'x\ty', '5-3']);
  });

  it('leaves negative numbers as numbers, in every form a spreadsheet reads, and nothing that only starts like one', () => {
    expect(cells(-5, '-5', '-55', '-5.25', '-2e3', '-2E+3', '-2e-3', '-0.5e10')).toEqual(['-5', '-5', '-55', '-5.25', '-2e3', '-2E+3', '-2e-3', '-0.5e10']);
    expect(cells('-5x', '-5x5', '-5.', '-.5', '-2e', '-2e+', '-1-1', '--5', '-5 ')).toEqual(["'-5x", "'-5x5", "'-5.", "'-.5", "'-2e", "'-2e+", "'-1-1", "'--5", "'-5 "]);
  });

  it('quotes a cell holding a comma, a quote, a carriage return or a line feed, and only those', () => {
    expect(cells('a,b', 'a"b', 'a\rb', 'a\nb', 'a;b', "a'b")).toEqual(['"a,b"', '"a""b"', '"a\rb"', '"a\nb"', 'a;b', "a'b"]);
  });

  it('writes booleans and numbers as text, arrays as JSON', () => {
    expect(cells(true, 3.5, 0, [1, 2])).toEqual(['true', '3.5', '0', '"[1,2]"']);
  });
});
