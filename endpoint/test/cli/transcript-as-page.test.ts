/**
 * `transcript` shows what the page shows (issue 30, point 10), over the demo's records as its pizza
 * agent on the Agents SDK sends them through the real middleware: a hero card's subtitle on Web
 * Chat as on Facebook, suggested actions by their labels, and users named as the page names them
 * (from `/api/users`, whatever the transcript's own entries carry). The command runs in this
 * process, as `main.ts` runs it.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TranscriptResponse, UsersResponse } from '../../src/index.js';
import { runCli } from '../../src/cli/run.js';
import { transcriptCommand } from '../../src/cli/transcript.js';
import { playDemo, startEndpoint } from '../helpers/demo.js';
import { KEY, Q, start, track } from '../helpers.js';

// The demo's bot imports the package by name; here that name means the source.
vi.mock('botbuilder-conversation-analytics', () => import('botbuilder-conversation-analytics'));

let endpoint: Awaited<ReturnType<typeof startEndpoint>>;

beforeAll(async () => {
  endpoint = await startEndpoint();
  expect((await playDemo(endpoint.url)).delivered).toBe(27);
}, 60_000);

afterAll(() => endpoint?.close());

/** Runs `transcript` with `args` against the demo's endpoint: its exit code and output. */
async function transcript(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const chunks = { stdout: '', stderr: '' };
  stdout.on('data', (c: Buffer) => (chunks.stdout += c.toString()));
  stderr.on('data', (c: Buffer) => (chunks.stderr += c.toString()));
  const code = await runCli(['transcript', '--url', endpoint.url, ...args], [transcriptCommand], { stdout, stderr, env: {} });
  return { code, ...chunks };
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${endpoint.url}${path}`);
  expect(res.status).toBe(200);
  return res.json() as Promise<T>;
}

const INDENT = ' '.repeat(20);

describe('transcript, as the page shows it', () => {
  it('shows a hero card\'s title and subtitle on Web Chat, as on Facebook, and as the page\'s entry text', async () => {
    const ada = await transcript('--user', 'user-ada');
    expect(ada.code).toBe(0);
    expect(ada.stdout).toContain(`bot   < Our pizzas\n${INDENT}Tap one to order it\n${INDENT}buttons: margherita (9.50 EUR) | pepperoni (11.00 EUR)`);
    expect(ada.stdout).toMatch(/^Summary of Ada \(user user-ada\): \d+ records/m);
    const linus = await transcript('--user', '2718281828');
    expect(linus.stdout).toContain(`bot   < Our pizzas\n${INDENT}Tap one to order it\n`);
    // The page shows each entry's text: the same two lines.
    const cards = (await get<TranscriptResponse>('/api/transcript?user=user-ada')).entries.filter((e) => e.direction === 'outgoing' && e.text?.startsWith('Our pizzas'));
    expect(cards.map((e) => e.text)).toEqual(['Our pizzas\nTap one to order it']);
  });

  it('shows Mei\'s Teams ratings with their thumbs and comments, as the page\'s event pills do', async () => {
    const mei = await transcript('--user', '29:1f4c-mei');
    expect(mei.code).toBe(0);
    const ratings = mei.stdout.split('\n').filter((line) => line.includes('"feedback"')).map((line) => line.replace(/^ +\d\d:\d\d:\d\d +/, ''));
    expect(ratings).toEqual(['event * customEvent "feedback" [thumbs up] "Clear, thanks"', 'event * customEvent "feedback" [thumbs down] "It did not answer my question"']);
  });

  it('shows the Agents SDK\'s suggested actions by their labels, not as JSON', async () => {
    const ada = await transcript('--user', 'user-ada');
    expect(ada.stdout).toContain(`bot   < Hello! Want to see the menu?\n${INDENT}buttons: menu | help`);
    expect(ada.stdout).not.toMatch(/buttons: \[|"text"/);
  });

  it('names a Facebook user as the page does: by id, as the Messenger records carry no name', async () => {
    const { users } = await get<UsersResponse>('/api/users?limit=1000');
    const linus = users.find((u) => u.userId === '2718281828');
    expect(linus?.name ?? null).toBeNull();
    const one = await transcript('--user', '2718281828');
    expect(one.stdout.split('\n')[0]).toBe('Transcript of user 2718281828 (facebook)');
    const all = await transcript('--limit', '0');
    expect(all.stdout).toContain('Transcript of user 2718281828 (facebook)');
    // Web Chat's records carry the name: Ada is named in both.
    expect(all.stdout).toContain('Transcript of Ada (user user-ada, universal)');
  });
});

describe('transcript of one conversation', () => {
  it('names its users as the page does, from /api/users, when the conversation\'s own entries carry no name', async () => {
    const other = await start({ apiKeys: [KEY, 'other-bot-key-2'] });
    try {
      const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
      // An older user of that id, of another bot, named otherwise: the most recently active one's name is taken, as the page takes it.
      await track(other, { ...Q.dmIn, apiKey: 'other-bot-key-2' }, { text: 'hello', userId: 'ann', platformJson: { timestamp: at(-30), conversation: { id: 'x' }, from: { id: 'ann', name: 'Annie (other bot)' } } });
      // Ann said who she is in one conversation (c0), not in the next (c1); Bob never did.
      await track(other, Q.dmIn, { text: 'hi', userId: 'ann', platformJson: { timestamp: at(0), conversation: { id: 'c0' }, from: { id: 'ann', name: 'Ann Smith' } } });
      await track(other, Q.dmIn, { text: 'again', userId: 'ann', platformJson: { timestamp: at(1), conversation: { id: 'c1' } } });
      await track(other, Q.dmIn, { text: 'me too', userId: 'bob', platformJson: { timestamp: at(2), conversation: { id: 'c1' } } });
      const [stdout, stderr] = [new PassThrough(), new PassThrough()];
      let out = '';
      stdout.on('data', (c: Buffer) => (out += c.toString()));
      const code = await runCli(['transcript', '--url', other.url, '--conversation', 'c1'], [transcriptCommand], { stdout, stderr, env: {} });
      expect(code).toBe(0);
      expect(out.split('\n')[0]).toBe('Transcript of conversation c1 (users Ann Smith (ann), bob)');
      expect(out).toContain('user  > Ann Smith: again');
      expect(out).toContain('user  > bob: me too');
      expect(out).toMatch(/^Summary of conversation c1: 2 records, 2 messages/m);
    } finally {
      await other.close();
    }
  });
});
