/**
 * The two databases the store runs on, each real, as fresh places to keep records for a test: a
 * new SQLite file in a temp folder, or a new database on the PostgreSQL server
 * (endpoint/test/helpers/postgres.ts), dropped after the test. Call `databases()` at the top of a test file.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { StoredRecord, TrackingEndpointOptions } from '../../src/index.js';
import { openStore } from '../../src/store/open.js';
import type { NewRecord, RecordStore } from '../../src/store/store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { request, start, tempDir } from '../helpers.js';

export interface TestDatabaseKind {
  name: 'SQLite' | 'PostgreSQL';
  /** A new, empty database: a SQLite file path or a PostgreSQL URL. */
  fresh(): Promise<string>;
}

/** Both databases, for `describe.each`; registers the hooks that make and remove them. */
export function databases(): TestDatabaseKind[] {
  let folder: { dir: string; cleanup: () => Promise<void> } | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    folder = await tempDir();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(async () => {
    await folder?.cleanup();
  });
  return [
    { name: 'SQLite', fresh: async () => join(folder!.dir, `${Math.random().toString(36).slice(2)}.db`) },
    {
      name: 'PostgreSQL',
      fresh: async () => {
        const db = await createTestDatabase();
        cleanups.push(() => db.drop());
        return db.url;
      },
    },
  ];
}

/** Opens a store on `database`, runs `body`, and closes it whatever happens. */
export async function withStore<T>(database: string, body: (store: RecordStore) => Promise<T>): Promise<T> {
  const { store } = await openStore({ database, log: () => undefined });
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

export const BOT = 'abcdefabcdef';
export const OTHER_BOT = '123456123456';

/** A universal-platform message as the endpoint stores it. */
export function universal(type: 'incoming' | 'outgoing', body: Record<string, unknown>, bot = BOT): NewRecord {
  return { platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type, bot, body };
}

/** An event as the endpoint stores it. */
export function event(body: Record<string, unknown>, bot = BOT): NewRecord {
  return { platform: 'twitter', platformKind: 'universal', v: '11.1.0-rest', type: 'event', bot, body };
}

/** A message of `user` in `conversation` that happened at `at` (ISO), with more fields of the body. */
export function said(user: string, text: string, at: string, extra: Record<string, unknown> = {}, conversation = `c-${user}`, type: 'incoming' | 'outgoing' = 'incoming'): NewRecord {
  const { platformJson, ...rest } = extra as { platformJson?: Record<string, unknown> };
  return universal(type, { text, userId: user, ...rest, platformJson: { timestamp: at, conversation: { id: conversation }, ...platformJson } });
}

/** Appends records one after the other: each in a transaction of its own. */
export async function appendEach(store: RecordStore, records: NewRecord[]): Promise<StoredRecord[]> {
  const stored: StoredRecord[] = [];
  for (const record of records) stored.push(await store.append(record));
  return stored;
}

/** Appends records together: one transaction (they arrive before the store writes). */
export function appendTogether(store: RecordStore, records: NewRecord[]): Promise<StoredRecord[]> {
  return Promise.all(records.map((record) => store.append(record)));
}

/** An endpoint on `database` (its store, and a GET of the read API that must answer 200), closed after `body`. */
export async function withEndpoint<T>(database: string, body: (store: RecordStore, get: (path: string) => Promise<any>) => Promise<T>, options: TrackingEndpointOptions = {}): Promise<T> {
  const endpoint = await start({ database, ...options });
  const get = async (path: string) => {
    const res = await request(endpoint, path);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  try {
    return await body(endpoint.store as RecordStore, get);
  } finally {
    await endpoint.close();
  }
}

/** A message as a bot framework sends it, built from what a test cares about. */
export interface Msg {
  user: string;
  /** When it happened (ISO). */
  at: string;
  text?: string;
  type?: 'incoming' | 'outgoing';
  /** `universal` (default), `twitter` (direct messages) or `sms`. */
  platform?: 'universal' | 'twitter' | 'sms';
  channel?: string;
  /** The user's name (from.name of what they send, recipient.name of what the bot sends). */
  name?: string;
  /** Default `c-USER`. */
  conversation?: string;
  intent?: string;
  score?: number;
  button?: string;
  ai?: boolean;
  /** The activity's id (what a feedback refers to). */
  id?: string;
  bot?: string;
}

const KINDS = { universal: ['universal', '10.1.1-rest'], twitter: ['directMessage', '11.1.0-rest'], sms: ['sms', '11.1.0-rest'] } as const;

export function msg(m: Msg): NewRecord {
  const type = m.type ?? 'incoming';
  const person = { id: m.user, ...(m.name === undefined ? {} : { name: m.name }) };
  const platformJson: Record<string, unknown> = { timestamp: m.at, conversation: { id: m.conversation ?? `c-${m.user}` }, [type === 'incoming' ? 'from' : 'recipient']: person };
  if (m.channel !== undefined) platformJson.channelId = m.channel;
  if (m.id !== undefined) platformJson.id = m.id;
  if (m.ai) platformJson.entities = [{ type: 'https://schema.org/Message', additionalType: ['AIGeneratedContent'] }];
  const body: Record<string, unknown> = { text: m.text ?? 'hello', userId: m.user, platformJson };
  if (m.intent !== undefined) body.intent = { name: m.intent, inputs: m.score === undefined ? [] : [{ name: 'score', value: String(m.score) }] };
  if (m.button !== undefined) body.postback = { buttonClick: { buttonId: m.button } };
  const [platformKind, v] = KINDS[m.platform ?? 'universal'];
  return { platform: m.platform ?? 'universal', platformKind, v, type, bot: m.bot ?? BOT, body };
}

/** An event of `user`, at `at` (ISO), in `conversation` (default `c-USER`). */
export function ev(user: string, name: string, at: string, extra: Record<string, unknown> = {}, conversation = `c-${user}`, bot = BOT): NewRecord {
  const { metadata, ...rest } = extra as { metadata?: Record<string, unknown> };
  return event({ type: 'customEvent', name, userId: user, conversationId: conversation, ...rest, metadata: { timestamp: at, ...metadata } }, bot);
}
