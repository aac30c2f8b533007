import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import type { TimeseriesResponse, TranscriptResponse } from '../../src/index.js';
import { KEY, request, start, tempDir } from '../helpers.js';
import { runCli } from './helpers.js';

let endpoint: TrackingEndpoint;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  endpoint = await start();
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await endpoint.close();
  await cleanup();
});

type Body = Record<string, unknown> & { type: string; userId: string };

/** What the endpoint stored, in order per user (the client keeps each user's order, not the order across users). */
const bodies = async (userId?: string): Promise<Body[]> => (await endpoint.store.records({ limit: 1_000_000 }))
  .map((r) => ({ type: r.type, platform: r.platform, v: r.v, ...(r.body as Record<string, unknown>) }) as unknown as Body)
  .filter((b) => userId === undefined || b.userId === userId);

const TICKETS = [
  'ticket,customer,body,from,topic,product',
  '1,c-1,"My printer, the big one, is broken",customer,complaint,printer',
  '2,c-1,"Sorry to hear that.\nTry turning it off and on.",agent,,',
  '3,,no customer on this row,customer,,',
  '4,c-2,"He said ""thanks""",in,,',
  '5,c-2,wrong direction,sideways,,',
  '6,c-3,one,field,too,many,here',
].join('\n');

describe('import FILE.csv', () => {
  it('sends the good rows as universal messages, refuses the bad ones by row and reason, and exits 1', async () => {
    const file = join(dir, 'tickets.csv');
    await writeFile(file, TICKETS);
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY,
      '--map', 'text=body,userId=customer,direction=from', '--map', 'intent=topic,input.product=product,conversationId=ticket']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('3 sent, 3 refused, 0 failed');
    expect(result.stderr).toContain('Refused rows (not sent):');
    expect(result.stderr).toContain('row 3 (line 5): userId (column "customer"): expected a non-empty string, got empty string');
    expect(result.stderr).toContain('row 5 (line 7): from: expected incoming or outgoing');
    expect(result.stderr).toContain('row 6 (line 8): has 7 fields but the header has 6');
    expect(result.stderr).not.toContain('\r');

    expect(await bodies()).toHaveLength(3);
    const stored = [...(await bodies('c-1')), ...(await bodies('c-2'))];
    expect(stored[0]).toMatchObject({
      type: 'incoming', platform: 'universal', v: '10.1.1-rest', text: 'My printer, the big one, is broken', userId: 'c-1',
      intent: { name: 'complaint', inputs: [{ name: 'product', value: 'printer' }] },
      platformJson: { conversation: { id: '1' }, source: { file: 'tickets.csv', row: 1, line: 2 } },
    });
    expect(stored[1]).toMatchObject({ type: 'outgoing', text: 'Sorry to hear that.\nTry turning it off and on.', userId: 'c-1' });
    expect(stored[1]).not.toHaveProperty('intent');
    expect(stored[2]).toMatchObject({ type: 'incoming', text: 'He said "thanks"', userId: 'c-2' });
  });

  it('exits 0 when every row is sent', async () => {
    const file = join(dir, 'ok.csv');
    await writeFile(file, 'text,userId\nhello,u1\nagain,u1\n');
    const result = await runCli(['import', file, '--url', endpoint.url], { TRACKING_API_KEY: KEY });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('2 sent, 0 refused, 0 failed');
    expect((await bodies()).map((b) => b.text)).toEqual(['hello', 'again']);
  });

  it('exits 2 naming the columns when a mapped column is not in the file', async () => {
    const file = join(dir, 'cols.csv');
    await writeFile(file, 'message,user\nhi,u1\n');
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY, '--map', 'userId=user']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no column "text" for text; its columns are "message", "user"');
    expect((await endpoint.store.count())).toBe(0);
  });

  it('sends nothing with --dry-run', async () => {
    const file = join(dir, 'dry.csv');
    await writeFile(file, 'text,userId\nhello,u1\nno user,\n');
    const result = await runCli(['import', file, '--dry-run']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 row would be sent, 1 refused');
    expect(result.stderr).toContain('row 2 (line 3)');
    expect((await endpoint.store.count())).toBe(0);
  });

  it('counts rows the endpoint refuses as failed, with the reason', async () => {
    const file = join(dir, 'key.csv');
    await writeFile(file, 'text,userId\nhello,u1\n');
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', 'wrong-key']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('0 sent, 0 refused, 1 failed');
    expect(result.stderr).toMatch(/row 1 \(line 2\): unauthorized \(HTTP 401\)/);
  });

  it('refuses a row whose quotes do not balance by its row number, and imports the rows after it', async () => {
    const file = join(dir, 'quotes.csv');
    await writeFile(file, 'text,userId\n"never closed,q1\nhello,q2\n"5" screen",q3\n"fine",q4\n');
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('2 sent, 2 refused, 0 failed');
    expect(result.stderr).toMatch(/row 1 \(line 2\): a quoted field opened on this line is not closed/);
    expect(result.stderr).toMatch(/row 3 \(line 4\): text follows the closing " of a quoted field/);
    expect(result.stderr).toContain('reading went on at line 3');
    expect((await bodies()).map((b) => [b.userId, b.text]).sort()).toEqual([['q2', 'hello'], ['q4', 'fine']]);
  });

  it('exits 1 naming the line when the header itself cannot be read, and sends nothing', async () => {
    const file = join(dir, 'broken.csv');
    await writeFile(file, '"text,userId\nhello,u1\n');
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not valid CSV: line 1: the header row cannot be read');
    expect(await endpoint.store.count()).toBe(0);
  });

  it('reads fields separated by another character with --delimiter, and tab-separated ones with --delimiter tab', async () => {
    const semicolons = join(dir, 'semi.csv');
    await writeFile(semicolons, 'text;userId\none, two;s1\n"three; four";s1\n');
    const semi = await runCli(['import', semicolons, '--url', endpoint.url, '--key', KEY, '--delimiter', ';']);
    expect(semi.code).toBe(0);
    expect(semi.stdout).toContain('2 sent, 0 refused, 0 failed');
    const tabs = join(dir, 'tabs.csv');
    await writeFile(tabs, 'text\tuserId\nfive, six; seven\ts2\n');
    const tab = await runCli(['import', tabs, '--url', endpoint.url, '--key', KEY, '--delimiter', 'tab']);
    expect(tab.code).toBe(0);
    expect((await bodies('s1')).map((b) => b.text)).toEqual(['one, two', 'three; four']);
    expect((await bodies('s2')).map((b) => b.text)).toEqual(['five, six; seven']);
  });

  it('suggests --delimiter when the header looks separated by another character', async () => {
    const file = join(dir, 'semi.csv');
    await writeFile(file, 'text;userId\nhello;u1\n');
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`its columns are "text;userId" (its header looks ";"-separated: pass --delimiter ';')`);
  });

  it('exits 2 for a --delimiter that is not one character, or given for a JSON Lines file', async () => {
    const csv = join(dir, 'x.csv');
    await writeFile(csv, 'text,userId\nhello,u1\n');
    const long = await runCli(['import', csv, '--key', KEY, '--delimiter', ';;']);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain(`--delimiter takes one character (such as ';' or '|') or tab; got ";;"`);
    const quote = await runCli(['import', csv, '--key', KEY, '--delimiter', '"']);
    expect(quote.code).toBe(2);
    const jsonl = join(dir, 'x.jsonl');
    await writeFile(jsonl, '{"text":"hello","userId":"u1"}\n');
    const wrong = await runCli(['import', jsonl, '--key', KEY, '--delimiter', ';']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--delimiter is for CSV files');
    expect(await endpoint.store.count()).toBe(0);
  });
});

describe('import with --map timestamp=COLUMN', () => {
  it('files each message on the day it happened, from ISO 8601, epoch seconds or epoch milliseconds', async () => {
    const file = join(dir, 'history.csv');
    await writeFile(file, [
      'text,userId,created_at',
      'iso with Z,t1,2024-03-05T10:00:00Z',
      'iso with an offset and a space,t1,2024-03-06 08:30:00+02:00',
      'epoch seconds,t1,1709856000',
      'epoch milliseconds,t1,1709942400123',
      'a date alone,t1,2024-03-10',
    ].join('\n'));
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY, '--map', 'timestamp=created_at']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('5 sent, 0 refused, 0 failed');
    const transcript = await request(endpoint, '/api/transcript?user=t1');
    expect((transcript.body as TranscriptResponse).entries.map((e) => [e.text, e.time])).toEqual([
      ['iso with Z', '2024-03-05T10:00:00.000Z'],
      ['iso with an offset and a space', '2024-03-06T06:30:00.000Z'],
      ['epoch seconds', '2024-03-08T00:00:00.000Z'],
      ['epoch milliseconds', '2024-03-09T00:00:00.123Z'],
      ['a date alone', '2024-03-10T00:00:00.000Z'],
    ]);
    const days = (await request(endpoint, '/api/timeseries?bucket=day')).body as TimeseriesResponse;
    expect(days.points.map((p) => [p.start.slice(0, 10), p.incoming])).toEqual([
      ['2024-03-05', 1], ['2024-03-06', 1], ['2024-03-07', 0], ['2024-03-08', 1], ['2024-03-09', 1], ['2024-03-10', 1],
    ]);
  });

  it('reads a JSON number as epoch seconds or milliseconds', async () => {
    const file = join(dir, 'history.jsonl');
    await writeFile(file, [
      JSON.stringify({ text: 'seconds', userId: 'j1', at: 1709856000 }),
      JSON.stringify({ text: 'milliseconds', userId: 'j1', at: 1709942400000 }),
    ].join('\n'));
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY, '--map', 'timestamp=at']);
    expect(result.code).toBe(0);
    const transcript = (await request(endpoint, '/api/transcript?user=j1')).body as TranscriptResponse;
    expect(transcript.entries.map((e) => e.time)).toEqual(['2024-03-08T00:00:00.000Z', '2024-03-09T00:00:00.000Z']);
  });

  it('refuses a row whose time is missing or not a time, naming its row, the column and the forms it takes, and sends the others', async () => {
    const file = join(dir, 'times.csv');
    await writeFile(file, [
      'text,userId,created_at',
      'good,b1,2024-03-05T10:00:00Z',
      'locale date,b2,03/05/2024',
      'no such day,b3,2024-02-30T10:00:00Z',
      'no time,b4,',
      'before 2000,b5,1999-12-31T23:59:59Z',
      'a word,b6,yesterday',
    ].join('\n'));
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY, '--map', 'timestamp=created_at']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 sent, 5 refused, 0 failed');
    const expected = 'expected an ISO 8601 date-time (2025-01-02T10:11:12Z, 2025-01-02 10:11:12.5+01:00, 2025-01-02) or epoch seconds (1735812672) or milliseconds (1735812672000)';
    expect(result.stderr).toContain(`row 2 (line 3): timestamp (column "created_at"): ${expected}, got "03/05/2024"`);
    expect(result.stderr).toContain(`row 3 (line 4): timestamp (column "created_at"): ${expected}, got "2024-02-30T10:00:00Z"`);
    expect(result.stderr).toContain('row 4 (line 5): timestamp (column "created_at") is required but missing');
    expect(result.stderr).toContain('row 5 (line 6): timestamp (column "created_at"): expected a time from 2000-01-01 up to now, got "1999-12-31T23:59:59Z"');
    expect(result.stderr).toContain(`row 6 (line 7): timestamp (column "created_at"): ${expected}, got "yesterday"`);
    expect((await bodies()).map((b) => b.userId)).toEqual(['b1']);
  });

  it('files a row when it is sent when the file has no time and none is mapped', async () => {
    const file = join(dir, 'now.csv');
    await writeFile(file, 'text,userId\nhello,n1\n');
    const before = Date.now();
    expect((await runCli(['import', file, '--url', endpoint.url, '--key', KEY])).code).toBe(0);
    const [entry] = ((await request(endpoint, '/api/transcript?user=n1')).body as TranscriptResponse).entries;
    expect(Date.parse(entry.time)).toBeGreaterThanOrEqual(before - 1000);
    expect((await bodies('n1'))[0].platformJson).not.toHaveProperty('timestamp');
  });
});

describe('import when the endpoint cannot be reached', () => {
  const FILE = ['text,userId', ...Array.from({ length: 8 }, (_, i) => `message ${i + 1},same-user`)].join('\n');

  it('stops after the first row it cannot deliver, says the URL, that nothing more was sent and how many rows were, and lists no row as failed', async () => {
    const closed = await start();
    const url = closed.url;
    await closed.close();
    const file = join(dir, 'down.csv');
    await writeFile(file, FILE);
    const result = await runCli(['import', file, '--url', url, '--key', KEY], {}, 60_000);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('0 sent, 0 refused, 0 failed, 8 not sent');
    expect(result.stderr).toContain(`Cannot reach the tracking endpoint at ${url} (connection refused: nothing is listening there); the import stopped, and nothing more was sent.`);
    expect(result.stderr).toContain('0 rows were sent before it stopped; 8 rows were not sent: rows 1-8.');
    expect(result.stderr).not.toContain('Failed rows');
    expect(result.stderr.match(/Cannot reach/g)).toHaveLength(1);
  }, 90_000);

  it('counts the rows sent before the endpoint went away, and sends nothing after', async () => {
    // An endpoint that accepts three records and then stops listening.
    let received = 0;
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (++received === 3) server.close();
        res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ ok: true, id: received }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const file = join(dir, 'going.csv');
    await writeFile(file, FILE);
    const result = await runCli(['import', file, '--url', url, '--key', KEY], {}, 60_000);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('3 sent, 0 refused, 0 failed, 5 not sent');
    expect(result.stderr).toContain('3 rows were sent before it stopped; 5 rows were not sent: rows 4-8.');
    expect(received).toBe(3);
  }, 90_000);
});

describe('import FILE.jsonl', () => {
  it('sends the good lines, refuses the bad ones by line and reason, and exits 1', async () => {
    const file = join(dir, 'chats.jsonl');
    await writeFile(file, [
      JSON.stringify({ text: 'hello', userId: 'j1', intent: 'greet' }),
      JSON.stringify({ text: 'hi, how can I help?', userId: 'j1', direction: 'outgoing' }),
      'not json',
      '',
      JSON.stringify({ text: 'numbers become text', userId: 12345 }),
      JSON.stringify({ text: 'object user', userId: { id: 1 } }),
      JSON.stringify(['an', 'array']),
      JSON.stringify({ text: 'full intent', userId: 'j2', intent: { name: 'order', inputs: [{ name: 'size', value: 'L' }] } }),
    ].join('\n'));
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('4 sent, 3 refused, 0 failed');
    expect(result.stderr).toContain('row 3 (line 3): is not valid JSON');
    expect(result.stderr).toContain('row 5 (line 6): userId: expected a non-empty string, got object');
    expect(result.stderr).toContain('row 6 (line 7): is not a JSON object');
    expect(await bodies()).toHaveLength(4);
    expect(await bodies('j1')).toMatchObject([
      { type: 'incoming', text: 'hello', intent: { name: 'greet', inputs: [] } },
      { type: 'outgoing', text: 'hi, how can I help?' },
    ]);
    expect(await bodies('12345')).toMatchObject([{ type: 'incoming', text: 'numbers become text' }]);
    expect(await bodies('j2')).toMatchObject([{ type: 'incoming', intent: { name: 'order', inputs: [{ name: 'size', value: 'L' }] } }]);
  });

  it('exits 2 when the format cannot be told from the extension', async () => {
    const file = join(dir, 'data.txt');
    await writeFile(file, '{}');
    const result = await runCli(['import', file, '--key', KEY]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--format csv or --format jsonl');
  });
});

describe('import masks before sending', () => {
  it('card numbers by default, emails and phone numbers with --mask, and keeps card numbers with --keep-card-numbers (when the endpoint does too)', async () => {
    const file = join(dir, 'cards.jsonl');
    await writeFile(file, [
      JSON.stringify({ text: 'card 4111 1111 1111 1111, order 1000000000000007', userId: 'm1', password: 'pw-in-a-column' }),
      JSON.stringify({ text: 'mail jo@example.com, call 555-123-4567', userId: 'm2' }),
    ].join('\n'));
    const masked = await runCli(['import', file, '--url', endpoint.url, '--key', KEY, '--mask', 'email,phone'], {}, 60_000);
    expect(masked.code).toBe(0);
    const [one] = await bodies('m1');
    expect(one.text).toBe('card •••• 1111, order 1000000000000007');
    expect((one.platformJson as { original: Record<string, unknown> }).original).toMatchObject({ text: 'card •••• 1111, order 1000000000000007', password: '[secret removed by the endpoint]' });
    expect((await bodies('m2'))[0].text).toBe('mail [email], call [phone]');

    const refused = await runCli(['import', file, '--url', endpoint.url, '--key', KEY, '--mask', 'ssn'], {}, 60_000);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--mask takes email and phone (comma-separated); got "ssn".');

    await endpoint.close();
    endpoint = await start({ keepCardNumbers: true });
    const kept = await runCli(['import', file, '--url', endpoint.url, '--key', KEY, '--keep-card-numbers'], {}, 60_000);
    expect(kept.code).toBe(0);
    expect((await bodies('m1'))[0].text).toBe('card 4111 1111 1111 1111, order 1000000000000007');
    expect((await bodies('m2'))[0].text).toBe('mail jo@example.com, call 555-123-4567');
  }, 180_000);
});
