import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/endpoint/index.js';
import { KEY, start, tempDir } from '../endpoint/helpers.js';
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

  it('exits 1 with the line of a CSV error', async () => {
    const file = join(dir, 'broken.csv');
    await writeFile(file, 'text,userId\n"never closed,u1\n');
    const result = await runCli(['import', file, '--url', endpoint.url, '--key', KEY]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not valid CSV: line 2');
  });
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
