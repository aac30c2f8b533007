/**
 * How `import` reads the rows of a CSV or JSON Lines export and turns each into a message, in
 * process (endpoint/test/cli/import.test.ts runs the command itself, as a user would).
 */
import { describe, expect, it } from 'vitest';
import { CsvError } from '../../src/cli/csv.js';
import { UsageError } from '../../src/cli/command.js';
import { checkColumns, csvRows, jsonlRows, parseFieldMap, prepareRow, type FieldMap, type PrepareOptions, type SourceRow } from '../../src/cli/import-rows.js';

const NOW = Date.UTC(2026, 0, 1);
const FORMS = 'expected an ISO 8601 date-time (2025-01-02T10:11:12Z, 2025-01-02 10:11:12.5+01:00, 2025-01-02) or epoch seconds (1735812672) or milliseconds (1735812672000)';
// Called in each test, never at load: a mutant that breaks it must fail a test, not the file's import.
const defaults = () => parseFieldMap([]).map;
const row = (values: Record<string, unknown>, error?: string): SourceRow => ({ row: 3, line: 4, values, ...(error === undefined ? {} : { error }) });
const prepare = (values: Record<string, unknown>, map: FieldMap = defaults(), options: PrepareOptions = {}) => prepareRow(row(values), map, 'export.csv', { now: NOW, ...options });
const reasonOf = (values: Record<string, unknown>, map: FieldMap = defaults(), options: PrepareOptions = {}) => {
  const prepared = prepare(values, map, options);
  return prepared.ok ? 'sent' : prepared.reason;
};
/** The message of a row that must be sent. */
const sent = (values: Record<string, unknown>, map: FieldMap = defaults()) => {
  const prepared = prepare(values, map);
  if (!prepared.ok) throw new Error(`refused: ${prepared.reason}`);
  return prepared.message;
};

describe('reading a CSV export', () => {
  it('numbers the data rows from 1 after the header, with the line each starts on, and reads values by the trimmed header names', () => {
    const { rows, columns } = csvRows(' text , userId \nhello,u1\n"two\nlines",u2\n');
    expect(columns).toEqual(['text', 'userId']);
    expect(rows.map((r) => [r.row, r.line, { ...r.values }, r.error])).toEqual([
      [1, 2, { text: 'hello', userId: 'u1' }, undefined],
      [2, 3, { text: 'two\nlines', userId: 'u2' }, undefined],
    ]);
  });

  it('reads a file with nothing in it as no rows and no columns', () => {
    expect(csvRows('')).toEqual({ rows: [], columns: [] });
  });

  it('takes the first of two columns with the same name', () => {
    expect({ ...csvRows('text,text,userId\nfirst,second,u1').rows[0].values }).toEqual({ text: 'first', userId: 'u1' });
  });

  it('refuses a row with another number of fields than the header, saying both', () => {
    const { rows } = csvRows('text,userId\nonly one\na,b,c\n');
    expect(rows.map((r) => r.error)).toEqual(['has 1 fields but the header has 2', 'has 3 fields but the header has 2']);
    expect(rows[0].values.userId).toBeUndefined();
  });

  it('refuses a row whose quotes do not balance, saying where reading went on', () => {
    const { rows } = csvRows('text,userId\nok,u1\n"never closed,u2\nafter,u3\n');
    expect(rows.map((r) => [r.row, r.line, r.error])).toEqual([
      [1, 2, undefined],
      [2, 3, 'a quoted field opened on this line is never closed (no closing " follows); the row was skipped, and reading went on at line 4'],
      [3, 4, undefined],
    ]);
  });

  it('throws a CsvError naming the line of the header when the header cannot be read', () => {
    const read = () => csvRows('\n"text,userId\nhello,u1\n');
    expect(read).toThrow(CsvError);
    expect(read).toThrow(expect.objectContaining({ name: 'CsvError' }));
    expect(read).toThrow('line 2: the header row cannot be read: a quoted field opened on this line is never closed (no closing " follows)');
    expect(() => csvRows('"text"x,userId\n')).toThrow('line 1: the header row cannot be read: text follows the closing "');
    let line: number | undefined;
    try {
      read();
    } catch (error) {
      line = (error as CsvError).line;
    }
    expect(line).toBe(2);
  });

  it('splits on the delimiter asked for', () => {
    expect({ ...csvRows('text|userId\na,b|u1', { delimiter: '|' }).rows[0].values }).toEqual({ text: 'a,b', userId: 'u1' });
  });
});

describe('reading a JSON Lines export', () => {
  it('numbers the rows from 1 and the lines as in the file, skipping blank lines, with CRLF or LF line ends', () => {
    const { rows, columns } = jsonlRows('{"text":"a"}\r\n\r\n  \n{"text":"b"}\n');
    expect(columns).toBeUndefined();
    expect(rows.map((r) => [r.row, r.line, { ...r.values }])).toEqual([[1, 1, { text: 'a' }], [2, 4, { text: 'b' }]]);
  });

  it('drops a byte order mark at the start, and only there', () => {
    const { rows } = jsonlRows('\uFEFF{"text":"a"}\n{"text":"\uFEFFb"}');
    expect(rows.map((r) => r.values.text)).toEqual(['a', '\uFEFFb']);
    expect(rows.every((r) => r.error === undefined)).toBe(true);
    expect(jsonlRows('{"text":"\uFEFFc"}').rows[0].values.text).toBe('\uFEFFc');
  });

  it('refuses a line that is not JSON, or JSON but not an object', () => {
    const { rows } = jsonlRows('not json\n[1,2]\n"text"\nnull\n{"ok":true}');
    expect(rows.map((r) => r.error)).toEqual(['is not valid JSON', 'is not a JSON object', 'is not a JSON object', 'is not a JSON object', undefined]);
  });
});

describe('--map', () => {
  it('reads each field from the column of its own name when not mapped', () => {
    expect(parseFieldMap([])).toEqual({
      map: { text: 'text', userId: 'userId', direction: 'direction', intent: 'intent', conversationId: 'conversationId', timestamp: 'timestamp', inputs: {} },
      explicit: new Set(),
    });
  });

  it('takes field=column pairs, comma-separated or repeated, spaces and empty pairs ignored, and input.NAME for intent inputs', () => {
    const { map, explicit } = parseFieldMap([' text = body ,, userId=customer,', 'input.size=size, direction=from', 'conversationId=ticket,intent=topic,timestamp=at']);
    expect(map).toEqual({ text: 'body', userId: 'customer', direction: 'from', intent: 'topic', conversationId: 'ticket', timestamp: 'at', inputs: { size: 'size' } });
    expect([...explicit].sort()).toEqual(['conversationId', 'direction', 'input.size', 'intent', 'text', 'timestamp', 'userId']);
  });

  it('keeps an equals sign inside the column name', () => {
    expect(parseFieldMap(['text=a=b']).map.text).toBe('a=b');
  });

  it('refuses a pair without a field, without a column, or without an equals sign, quoting it', () => {
    for (const pair of ['=body', 'text=', 'text', ' = ']) {
      expect(() => parseFieldMap([pair])).toThrow(UsageError);
      expect(() => parseFieldMap([pair])).toThrow(`--map takes field=column pairs, such as text=body,userId=customer; got "${pair.trim()}".`);
    }
  });

  it('refuses an unknown field, listing the fields there are', () => {
    for (const field of ['body', 'input.', 'inputs', 'Text']) {
      expect(() => parseFieldMap([`${field}=x`])).toThrow(`--map: unknown field "${field}"; the fields are text, userId, direction, intent, conversationId, timestamp and input.NAME.`);
    }
  });
});

describe('checking the CSV header against the map', () => {
  const check = (specs: string[], columns: string[]) => {
    const { map, explicit } = parseFieldMap(specs);
    return () => checkColumns(map, explicit, columns);
  };

  it('needs a column for the text and the user, and for each field mapped explicitly or input', () => {
    expect(check([], ['text', 'userId'])).not.toThrow();
    expect(check([], ['userId'])).toThrow('the file has no column "text" for text; its columns are "userId". Map one with --map text=COLUMN.');
    expect(check([], ['text'])).toThrow('the file has no column "userId" for userId; its columns are "text". Map one with --map userId=COLUMN.');
    expect(check(['direction=from'], ['text', 'userId'])).toThrow('no column "from" for direction;');
    expect(check(['timestamp=timestamp'], ['text', 'userId'])).toThrow('no column "timestamp" for timestamp;');
    expect(check(['input.size=size'], ['text', 'userId'])).toThrow('the file has no column "size" for input.size; its columns are "text", "userId". Map one with --map input.size=COLUMN.');
    expect(check(['text=body', 'userId=customer', 'direction=from'], ['body', 'customer', 'from'])).not.toThrow();
    expect(check(['text=body'], ['text', 'userId'])).toThrow(UsageError);
  });

  it('does not need the columns of fields left to their defaults other than text and userId', () => {
    expect(check([], ['text', 'userId'])).not.toThrow();
    expect(check(['conversationId=thread', 'intent=topic'], ['text', 'userId', 'thread', 'topic'])).not.toThrow();
    expect(check(['intent=topic'], ['text', 'userId'])).toThrow('no column "topic" for intent;');
    expect(check(['conversationId=thread'], ['text', 'userId'])).toThrow('no column "thread" for conversationId;');
  });

  it('suggests --delimiter when the only column holds a semicolon, a tab or a bar', () => {
    expect(check([], ['text;userId'])).toThrow(`its columns are "text;userId" (its header looks ";"-separated: pass --delimiter ';'). Map one`);
    expect(check([], ['text\tuserId'])).toThrow(`its columns are "text\\tuserId" (its header looks tab-separated: pass --delimiter tab). Map one`);
    expect(check([], ['text|userId'])).toThrow(`(its header looks "|"-separated: pass --delimiter '|')`);
    expect(check([], ['message'])).toThrow('its columns are "message". Map one with --map text=COLUMN.');
    // Two columns: the delimiter was right, whatever the names hold.
    expect(check([], ['a;b', 'c'])).toThrow('its columns are "a;b", "c". Map one with --map text=COLUMN.');
  });
});

describe('turning a row into a message', () => {
  it('sends the text and user, with the whole row and where it came from in platformJson', () => {
    const prepared = prepare({ text: 'hello', userId: 'u1', extra: 'kept' });
    expect(prepared).toEqual({
      ok: true,
      row: row({ text: 'hello', userId: 'u1', extra: 'kept' }),
      direction: 'incoming',
      message: { text: 'hello', userId: 'u1', platformJson: { source: { file: 'export.csv', row: 3, line: 4 }, original: { text: 'hello', userId: 'u1', extra: 'kept' } } },
    });
  });

  it('takes the direction from its words, in any case and with spaces; no direction is incoming', () => {
    const direction = (value: unknown) => {
      const prepared = prepare({ text: 'x', userId: 'u', direction: value });
      return prepared.ok ? prepared.direction : 'refused';
    };
    for (const word of ['', 'incoming', 'in', 'inbound', 'user', 'customer', ' IN ', 'Customer', undefined, null]) expect(direction(word), String(word)).toBe('incoming');
    for (const word of ['outgoing', 'out', 'outbound', 'bot', 'agent', 'OUT', ' Agent ']) expect(direction(word), word).toBe('outgoing');
    for (const word of ['sideways', 0, 1, true, 'incoming!']) expect(direction(word), String(word)).toBe('refused');
  });

  it('refuses a row of another direction, quoting what the column held', () => {
    const { map } = parseFieldMap(['direction=from']);
    expect(reasonOf({ text: 'x', userId: 'u', from: 'sideways' }, map)).toBe('from: expected incoming or outgoing (also in/out, user/bot, customer/agent), got "sideways"');
    expect(reasonOf({ text: 'x', userId: 'u', direction: 3 })).toBe('direction: expected incoming or outgoing (also in/out, user/bot, customer/agent), got 3');
  });

  it('refuses a row that could not be read with the reason it could not', () => {
    expect(prepareRow(row({ text: 'x', userId: 'u' }, 'is not valid JSON'), defaults(), 'f.jsonl')).toEqual({ ok: false, row: row({ text: 'x', userId: 'u' }, 'is not valid JSON'), reason: 'is not valid JSON' });
  });

  it('gives numbers as text for the text, user and conversation', () => {
    expect(sent({ text: 42, userId: 7, conversationId: 12 })).toMatchObject({ text: '42', userId: '7', platformJson: { conversation: { id: '12' } } });
  });

  it('leaves the conversation out when the column is empty or missing', () => {
    for (const conversationId of ['', undefined]) {
      expect(sent({ text: 'x', userId: 'u', conversationId }).platformJson).not.toHaveProperty('conversation');
    }
  });

  it('refuses a text or user that is not text, naming the column they were mapped to', () => {
    const { map } = parseFieldMap(['text=body', 'userId=customer']);
    expect(reasonOf({}, map)).toBe('text (column "body") is required but missing; userId (column "customer") is required but missing');
    expect(reasonOf({ body: Number.NaN, customer: 'c' }, map)).toBe('text (column "body"): expected a string, got NaN');
    expect(reasonOf({ text: 'x', userId: '' })).toBe('userId: expected a non-empty string, got empty string');
  });

  it('sends an intent named in a column, trimmed, with the inputs mapped to columns that have a value', () => {
    const { map } = parseFieldMap(['intent=topic', 'input.size=size,input.count=count,input.note=note,input.missing=nothing']);
    expect(sent({ text: 'x', userId: 'u', topic: ' order ', size: 'L', count: 2, note: '' }, map).intent).toEqual({ name: 'order', inputs: [{ name: 'size', value: 'L' }, { name: 'count', value: '2' }] });
  });

  it('sends no intent when the column is empty or missing', () => {
    for (const intent of ['', null, undefined]) {
      expect(sent({ text: 'x', userId: 'u', intent }), String(intent)).not.toHaveProperty('intent');
    }
  });

  it('passes a JSON intent as it is, and refuses it naming the column when it is not one', () => {
    const intent = { name: 'order', inputs: [{ name: 'size', value: 'L' }] };
    expect(sent({ text: 'x', userId: 'u', intent }).intent).toEqual(intent);
    const { map } = parseFieldMap(['intent=topic']);
    expect(reasonOf({ text: 'x', userId: 'u', topic: { name: 3 } }, map)).toBe('intent.name (column "topic"): expected a non-empty string, got number; intent.inputs (column "topic") is required but missing');
    expect(reasonOf({ text: 'x', userId: 'u', intent: { name: 3, inputs: [] } })).toBe('intent.name: expected a non-empty string, got number');
  });

  it('gives every reason a row is refused, one after the other', () => {
    expect(reasonOf({ text: 'x', userId: '', direction: 'sideways', timestamp: 'soon' })).toBe(
      `direction: expected incoming or outgoing (also in/out, user/bot, customer/agent), got "sideways"; timestamp: ${FORMS}, got "soon"; userId: expected a non-empty string, got empty string`,
    );
  });
});

describe('the time of a row', () => {
  it('goes into platformJson.timestamp as ISO 8601 in UTC', () => {
    expect(sent({ text: 'x', userId: 'u', timestamp: '2025-03-05 12:00:00+02:00' }).platformJson).toMatchObject({ timestamp: '2025-03-05T10:00:00.000Z' });
  });

  it('is left out when the row has none and none is required', () => {
    for (const timestamp of [undefined, null, '', '   ']) {
      expect(sent({ text: 'x', userId: 'u', timestamp }).platformJson, String(timestamp)).not.toHaveProperty('timestamp');
    }
  });

  it('refuses a row without one when the column was mapped, naming the column and the forms it takes', () => {
    const { map } = parseFieldMap(['timestamp=created_at']);
    for (const created_at of [undefined, null, '', '  ']) {
      expect(reasonOf({ text: 'x', userId: 'u', created_at }, map, { timestampRequired: true })).toBe(`timestamp (column "created_at") is required but missing (expected ${FORMS.slice('expected '.length)})`);
    }
    expect(reasonOf({ text: 'x', userId: 'u' }, defaults(), { timestampRequired: true })).toBe(`timestamp is required but missing (expected ${FORMS.slice('expected '.length)})`);
  });

  it('refuses a time it cannot read, or one before 2000 or more than a day ahead of now', () => {
    const { map } = parseFieldMap(['timestamp=at']);
    expect(reasonOf({ text: 'x', userId: 'u', at: 'tomorrow' }, map)).toBe(`timestamp (column "at"): ${FORMS}, got "tomorrow"`);
    expect(reasonOf({ text: 'x', userId: 'u', timestamp: '1999-12-31' })).toBe('timestamp: expected a time from 2000-01-01 up to now, got "1999-12-31" (1999-12-31T00:00:00.000Z)');
    expect(reasonOf({ text: 'x', userId: 'u', timestamp: NOW + 2 * 86_400_000 }, defaults())).toBe(`timestamp: expected a time from 2000-01-01 up to now, got ${NOW + 2 * 86_400_000} (2026-01-03T00:00:00.000Z)`);
    expect(reasonOf({ text: 'x', userId: 'u', timestamp: NOW + 2 * 86_400_000 }, defaults(), { now: NOW + 2 * 86_400_000 })).toBe('sent');
  });
});
