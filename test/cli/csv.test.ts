import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv } from '../../src/cli/csv.js';

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

describe('parseCsv', () => {
  it('splits records and fields', () => {
    expect(fields('a,b,c\n1,2,3\n')).toEqual([['a', 'b', 'c'], ['1', '2', '3']]);
  });

  it('keeps commas, newlines and doubled quotes inside quoted fields', () => {
    expect(fields('text,n\n"one, two",1\n"line 1\nline 2",2\n"say ""hi""",3')).toEqual([
      ['text', 'n'], ['one, two', '1'], ['line 1\nline 2', '2'], ['say "hi"', '3'],
    ]);
  });

  it('reads CRLF and CR line ends, and a BOM', () => {
    expect(fields('\uFEFFa,b\r\n1,2\r3,4')).toEqual([['a', 'b'], ['1', '2'], ['3', '4']]);
  });

  it('keeps empty fields, including a trailing one', () => {
    expect(fields('a,,c\n,,\n1,2,')).toEqual([['a', '', 'c'], ['', '', ''], ['1', '2', '']]);
  });

  it('skips blank lines', () => {
    expect(fields('a\n\n1\n\n')).toEqual([['a'], ['1']]);
  });

  it('reports the line each record starts on, counting newlines inside quotes', () => {
    expect(parseCsv('h\n"x\ny"\nz\r\n"p\r\nq"\nr').map((r) => r.line)).toEqual([1, 2, 4, 5, 7]);
  });

  it('keeps a quote inside an unquoted field as a character', () => {
    expect(fields('5" screen,x')).toEqual([['5" screen', 'x']]);
  });

  it('throws CsvError with the line of an unclosed quote', () => {
    expect(() => parseCsv('a\n"never closed\n')).toThrow(CsvError);
    expect(() => parseCsv('a\n"never closed\n')).toThrow(/line 2/);
  });

  it('throws CsvError for text after a closing quote', () => {
    expect(() => parseCsv('"ab"c,d')).toThrow(/after a closing quote/);
  });
});
