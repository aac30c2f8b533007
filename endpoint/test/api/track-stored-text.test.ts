/**
 * What `POST /track` keeps of a body, read back from the SQLite file itself: the text as it was
 * sent (its spacing, escapes and number forms), on one line and without the whitespace around it,
 * unless something in it was masked or removed (then the body as stored, serialised again). And
 * what it says when it refuses: the exact words for a bad query and for a body that does not match
 * the spec, the scripted form or a platform's record.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { Q, request, start, tempDir, track } from '../helpers.js';

let cleanup: (() => Promise<void>) | undefined;
let endpoint: TrackingEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  await cleanup?.();
  cleanup = undefined;
});

async function startOnFile(): Promise<{ endpoint: TrackingEndpoint; file: string }> {
  const folder = await tempDir();
  cleanup = folder.cleanup;
  const file = join(folder.dir, 'stored.db');
  endpoint = await start({ database: file });
  return { endpoint, file };
}

/** Posts `text` as the body, as it is. */
function post(target: TrackingEndpoint, query: Record<string, string>, text: string, contentType = 'application/json') {
  return request(target, `/track?${new URLSearchParams(query)}`, { method: 'POST', headers: { 'content-type': contentType }, body: text });
}

/** The stored text of every record, in order (the endpoint is closed first: it holds its file alone). */
async function storedTexts(file: string): Promise<string[]> {
  await endpoint?.close();
  endpoint = undefined;
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('select body from records order by seq').all() as { body: string }[]).map((row) => row.body);
  } finally {
    db.close();
  }
}

describe('the text stored', () => {
  it('is the body as sent, without the whitespace around it', async () => {
    const { endpoint: e, file } = await startOnFile();
    const sent = '{"text":"caf\\u00e9", "userId":"u1",  "n":1.50, "e":1e2}';
    expect((await post(e, Q.universalIn, `  ${sent}\t `)).status).toBe(200);
    expect(await storedTexts(file)).toEqual([sent]);
  });

  it('is on one line: every run of line breaks becomes one space', async () => {
    const { endpoint: e, file } = await startOnFile();
    expect((await post(e, Q.universalIn, '\n{\r\n  "text": "hi",\n\n  "userId": "u1"\r}\r\n')).status).toBe(200);
    expect(await storedTexts(file)).toEqual(['{   "text": "hi",   "userId": "u1" }']);
  });

  it('is the body serialised again when something in it was masked', async () => {
    const { endpoint: e, file } = await startOnFile();
    expect((await post(e, Q.universalIn, '{"text": "card 4111 1111 1111 1111",  "userId": "u1"}')).status).toBe(200);
    expect(await storedTexts(file)).toEqual(['{"text":"card •••• 1111","userId":"u1"}']);
  });
});

describe('what a refusal says', () => {
  it('names a query that does not make a tracking request', async () => {
    const { endpoint: e } = await startOnFile();
    const res = await track(e, { ...Q.universalIn, type: 'nope' }, { text: 'hi', userId: 'u1' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('The query string does not make a valid tracking request.');
  });

  it('names the scripted form, or the record and platform, whose spec the body does not match', async () => {
    const { endpoint: e } = await startOnFile();
    const scripted = await track(e, Q.scripted, { userId: 'u1' });
    expect(scripted.status).toBe(400);
    expect(scripted.body.error).toBe('The body does not match the spec for the scripted form (type=generic, body {text}); see problems.');
    const incoming = await track(e, Q.universalIn, { userId: 'u1' });
    expect(incoming.status).toBe(400);
    expect(incoming.body.error).toBe('The body does not match the spec for an incoming record on universal; see problems.');
  });

  it('checks a scripted body against the scripted form also when a platform is named', async () => {
    const { endpoint: e } = await startOnFile();
    const named = await track(e, { ...Q.scripted, platform: 'universal' }, { text: 'hi' });
    expect(named.status).toBe(200);
    const without = await track(e, { ...Q.scripted, platform: 'universal' }, { userId: 'u1' });
    expect(without.body.error).toBe('The body does not match the spec for the scripted form (type=generic, body {text}); see problems.');
  });
});

describe('Content-Type', () => {
  it('takes application/json with spaces before its parameters', async () => {
    const { endpoint: e } = await startOnFile();
    expect((await post(e, Q.universalIn, '{"text":"hi","userId":"u1"}', 'application/json ; charset=utf-8')).status).toBe(200);
  });
});
