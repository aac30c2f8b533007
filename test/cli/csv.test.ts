import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/cli/csv.js';

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

  it('returns a record whose quoted field is never closed with an error, and reads on from the next line', () => {
    expect(parseCsv('a,b\n"never closed,1\n2,3\n')).toEqual([
      { fields: ['a', 'b'], line: 1 },
      { fields: [], line: 2, error: 'a quoted field opened on this line is never closed (no closing " follows)' },
      { fields: ['2', '3'], line: 3 },
    ]);
  });

  it('returns a record with text after a closing quote with an error, and reads on from the next line', () => {
    expect(parseCsv('"ab"c,d\ne,f')).toEqual([
      { fields: [], line: 1, error: 'text follows the closing " of a quoted field (a " inside a quoted field must be doubled: "")' },
      { fields: ['e', 'f'], line: 2 },
    ]);
  });

  it('takes an opening quote that runs on to a later row for the error, not the later row', () => {
    const records = parseCsv('h,i\n"open,1\nplain,2\n"quoted",3\r\nlast,4');
    expect(records.map((r) => [r.line, r.fields, r.error])).toEqual([
      [1, ['h', 'i'], undefined],
      [2, [], 'a quoted field opened on this line is not closed on it (the next " is on line 4, and text follows it)'],
      [3, ['plain', '2'], undefined],
      [4, ['quoted', '3'], undefined],
      [5, ['last', '4'], undefined],
    ]);
  });

  it('splits on another delimiter, keeping commas, and the delimiter inside quotes', () => {
    expect(parseCsv('a;b\n"x;y";1,5\n;\n', { delimiter: ';' }).map((r) => r.fields)).toEqual([['a', 'b'], ['x;y', '1,5'], ['', '']]);
    expect(parseCsv('a\tb\n"x\ty"\t2\n', { delimiter: '\t' }).map((r) => r.fields)).toEqual([['a', 'b'], ['x\ty', '2']]);
  });

  it('throws RangeError for a delimiter that is not one character, or is a quote or a line end', () => {
    for (const delimiter of ['', ';;', '"', '\n', '\r']) expect(() => parseCsv('a', { delimiter })).toThrow(RangeError);
  });
});
