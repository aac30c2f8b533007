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

  it('skips blank lines, counting them in the line numbers', () => {
    expect(fields('a\n\n1\n\n')).toEqual([['a'], ['1']]);
    expect(parseCsv('a\n\nb\r\n\r\nc\r\rd').map((r) => [r.line, r.fields])).toEqual([[1, ['a']], [3, ['b']], [5, ['c']], [7, ['d']]]);
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

  it('reads nothing from an empty text, or one with only a BOM or blank lines', () => {
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv('\uFEFF')).toEqual([]);
    expect(parseCsv('\n\r\n\r')).toEqual([]);
  });

  it('keeps a BOM that is not at the start as a character', () => {
    expect(fields('a\n\uFEFFb')).toEqual([['a'], ['\uFEFFb']]);
  });

  it('keeps a line holding only delimiters as a record of empty fields', () => {
    expect(parseCsv('a,b\n,\n')).toEqual([{ fields: ['a', 'b'], line: 1 }, { fields: ['', ''], line: 2 }]);
  });

  it('reads a quoted field at the very end of the text, and an empty quoted field', () => {
    expect(fields('a,"b"')).toEqual([['a', 'b']]);
    expect(fields('"",x\n"a""",""""')).toEqual([['', 'x'], ['a"', '"']]);
    expect(fields('"x"\r\n"y"\r"z"\n')).toEqual([['x'], ['y'], ['z']]);
  });

  it('counts a CR alone inside a quoted field as a line end, and CRLF as one', () => {
    expect(parseCsv('"a\rb",1\nnext\n"c\r\nd"\nlast').map((r) => [r.line, r.fields])).toEqual([[1, ['a\rb', '1']], [3, ['next']], [4, ['c\r\nd']], [6, ['last']]]);
    expect(parseCsv('"a\n\nb"\nz').map((r) => r.line)).toEqual([1, 4]);
  });

  it('says the field runs on to the line of the next quote, counting the lines between', () => {
    expect(parseCsv('"open\r\nmore\rstill\n"x\nok')).toEqual([
      { fields: [], line: 1, error: 'a quoted field opened on this line is not closed on it (the next " is on line 4, and text follows it)' },
      { fields: ['more'], line: 2 },
      { fields: ['still'], line: 3 },
      { fields: [], line: 4, error: 'a quoted field opened on this line is never closed (no closing " follows)' },
      { fields: ['ok'], line: 5 },
    ]);
  });

  it('reads on after a refused record that ends with CRLF, and after one on the last line', () => {
    expect(parseCsv('"a"b\r\nc\r\n"d"e')).toEqual([
      { fields: [], line: 1, error: 'text follows the closing " of a quoted field (a " inside a quoted field must be doubled: "")' },
      { fields: ['c'], line: 2 },
      { fields: [], line: 3, error: 'text follows the closing " of a quoted field (a " inside a quoted field must be doubled: "")' },
    ]);
    expect(parseCsv('"a"b\rc').map((r) => [r.line, r.fields])).toEqual([[1, []], [2, ['c']]]);
    expect(parseCsv('"a"b\n\nc\n"d"e\r\n\r\nf').map((r) => [r.line, r.fields])).toEqual([[1, []], [3, ['c']], [4, []], [6, ['f']]]);
  });

  it('takes the text after a closing quote for an error on a later field too', () => {
    expect(parseCsv('x,"a" ,y')[0]).toMatchObject({ fields: [], error: expect.stringContaining('text follows the closing "') });
    expect(parseCsv('x;"a";y', { delimiter: ';' })[0].fields).toEqual(['x', 'a', 'y']);
    expect(parseCsv('x,"a";y', { delimiter: ';' })[0].fields).toEqual(['x,"a"', 'y']);
  });

  it('names the delimiter it refuses, and takes any other single character', () => {
    expect(() => parseCsv('a', { delimiter: ';;' })).toThrow('The CSV delimiter must be one character other than ", CR and LF; got ";;".');
    expect(parseCsv('a b', { delimiter: ' ' })[0].fields).toEqual(['a', 'b']);
    expect(parseCsv('a,b', {})[0].fields).toEqual(['a', 'b']);
  });
});
