/**
 * Bots instrumented with dashbot's own npm client (12.1.0, which sends `v=12.1.0-npm`) pointed at
 * this endpoint: every kind of record it sends is accepted, kept with the client's version, shown,
 * and said once in the log; `strictVersions` refuses them as the spec's list says.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { isClientVersion } from '../../src/store/client-version.js';
import { parseRecordLine } from '../../src/store/ndjson-import.js';
import { KEY, request, start } from '../helpers.js';

interface DashbotPlatform {
  logIncoming(data: unknown): Promise<{ status: number }>;
  logOutgoing(data: unknown, responseBody?: unknown): Promise<{ status: number }>;
  logEvent(data: unknown): Promise<{ status: number }>;
}
type Dashbot = Record<'universal' | 'sms' | 'facebook', DashbotPlatform>;

const require = createRequire(import.meta.url);
const DASHBOT_VERSION = `${(require('dashbot/package.json') as { version: string }).version}-npm`;

/** dashbot's npm client, as a bot would make it, sending to `endpoint`. */
function dashbotFor(endpoint: TrackingEndpoint): Dashbot {
  const dashbot = require('dashbot') as (apiKey: string, config: object) => Dashbot;
  // printErrors: its requests' promises give the response only then (and a 400's text is printed, as a bot would see it).
  return dashbot(KEY, { serverRoot: endpoint.url, printErrors: true });
}

const webhook = (senderId: string, text: string) => ({
  object: 'page',
  entry: [{ id: 'page-1', time: 1_700_000_000_000, messaging: [{ sender: { id: senderId }, recipient: { id: 'page-1' }, timestamp: 1_700_000_000_000, message: { mid: 'm1', seq: 1, text } }] }],
});

/** The five kinds of record of the issue, sent the way dashbot's client sends them; the statuses it got. */
async function sendEveryKind(dashbot: Dashbot): Promise<number[]> {
  const answers = [
    await dashbot.universal.logIncoming({ text: 'a margherita please', userId: 'ada', intent: { name: 'OrderPizza', inputs: [{ name: 'pizza', value: 'margherita' }] } }),
    await dashbot.sms.logOutgoing({ text: 'Your order is on its way', userId: '+15550100' }),
    await dashbot.universal.logEvent({ name: 'purchase', type: 'revenueEvent', userId: 'ada', amount: 9.5, metadata: { currency: 'EUR' } }),
    await dashbot.facebook.logIncoming(webhook('linus', 'hello page')),
    await dashbot.facebook.logOutgoing(
      { qs: { access_token: 'page-token' }, uri: 'https://graph.facebook.com/v2.6/me/messages', json: { recipient: { id: 'linus' }, message: { text: 'hello Linus' } } },
      { recipient_id: 'linus', message_id: 'mid.1' },
    ),
  ];
  return answers.map((answer) => answer.status);
}

describe('records from a client version the spec does not list', () => {
  let endpoint: TrackingEndpoint | undefined;
  afterEach(() => endpoint?.close());

  it('accepts every kind of record dashbot\'s npm client sends, keeps its version and shows them', async () => {
    const log: string[] = [];
    endpoint = await start({ log: (line) => log.push(line) });
    expect(await sendEveryKind(dashbotFor(endpoint))).toEqual([200, 200, 200, 200, 200]);
    const records = await endpoint.store.records({ limit: 100 });
    expect(records.map((r) => [r.platform, r.type, r.v])).toEqual([
      ['universal', 'incoming', DASHBOT_VERSION],
      ['sms', 'outgoing', DASHBOT_VERSION],
      ['universal', 'event', DASHBOT_VERSION],
      ['facebook', 'incoming', DASHBOT_VERSION],
      ['facebook', 'outgoing', DASHBOT_VERSION],
    ]);
    const ada = (await request(endpoint, '/api/transcript?user=ada')).body.entries as { direction: string; text?: string; intent?: { name: string }; event?: { name: string } }[];
    expect(ada).toHaveLength(2);
    expect(ada[0]).toMatchObject({ direction: 'incoming', text: 'a margherita please', intent: { name: 'OrderPizza' } });
    expect(ada[1]).toMatchObject({ direction: 'event' });
    expect(JSON.stringify(ada[1])).toContain('purchase');
    const linus = (await request(endpoint, '/api/transcript?user=linus')).body.entries as { direction: string; text?: string }[];
    expect(linus.map((e) => [e.direction, e.text])).toEqual([['incoming', 'hello page'], ['outgoing', 'hello Linus']]);
    const sms = (await request(endpoint, `/api/transcript?user=${encodeURIComponent('+15550100')}`)).body.entries as { direction: string; text?: string }[];
    expect(sms.map((e) => [e.direction, e.text])).toEqual([['outgoing', 'Your order is on its way']]);
    // Said once, for five records of that version.
    const said = log.filter((line) => line.includes('client version'));
    expect(said).toEqual([
      `tracking endpoint: accepting records from client version v=${DASHBOT_VERSION}, which the spec does not list (it lists 11.1.0-rest and 10.1.1-rest); start with --strict-versions to refuse them.`,
    ]);
  });

  it('says each version once, and at most 20 versions', async () => {
    const log: string[] = [];
    endpoint = await start({ log: (line) => log.push(line) });
    for (let i = 0; i < 25; i++) {
      for (let repeat = 0; repeat < 2; repeat++) {
        const res = await fetch(`${endpoint.url}/track?apiKey=${KEY}&platform=universal&type=incoming&v=1.${i}.0-python`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', userId: 'u1' }),
        });
        expect(res.status).toBe(200);
      }
    }
    const said = log.filter((line) => line.includes('client version'));
    expect(said).toHaveLength(20);
    expect(said.map((line) => /v=(\S+),/.exec(line)![1])).toEqual(Array.from({ length: 20 }, (_, i) => `1.${i}.0-python`));
    expect(said[19]).toContain('(the last such line: 20 versions said)');
    expect(said[18]).not.toContain('the last such line');
    expect(await endpoint.store.records({ limit: 100 })).toHaveLength(50);
  });

  it('refuses them with strictVersions, naming the versions the spec lists, and stores nothing', async () => {
    const log: string[] = [];
    endpoint = await start({ strictVersions: true, log: (line) => log.push(line) });
    const printed = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await sendEveryKind(dashbotFor(endpoint))).toEqual([400, 400, 400, 400, 400]);
      expect(printed.mock.calls.filter(([first]) => first === 'validation error: ')).toHaveLength(5);
    } finally {
      printed.mockRestore();
    }
    expect(await endpoint.store.records({ limit: 100 })).toEqual([]);
    const res = await fetch(`${endpoint.url}/track?apiKey=${KEY}&platform=universal&type=incoming&v=12.1.0-npm`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', userId: 'u1' }),
    });
    expect(((await res.json()) as { problems: unknown[] }).problems).toEqual([{ path: 'v', expected: '"10.1.1-rest" (the version for universal-platform messages)', received: '"12.1.0-npm"' }]);
    expect(log.filter((line) => line.includes('client version'))).toEqual([]);
  });

  it('still holds a spec version to the spec\'s rule: a client version does not loosen it', async () => {
    endpoint = await start();
    const res = await fetch(`${endpoint.url}/track?apiKey=${KEY}&platform=universal&type=incoming&v=11.1.0-rest`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi', userId: 'u1' }),
    });
    expect(res.status).toBe(400);
  });
});

describe('what counts as a client version', () => {
  it.each(['12.1.0-npm', '0.0.1-python', '1.2.3-rest', '10.1.1-Rest', '123456.0.0-a'])('%j is one', (v) => {
    expect(isClientVersion(v)).toBe(true);
  });
  it.each([
    '11.1.0-rest', '10.1.1-rest', // the spec's own: checked against its rule, not accepted as a client's
    '12.1-npm', '12.1.0', '12.1.0-', '12.1.0-npm-x', '12.1.0-1npm', 'a.b.c-npm', ' 12.1.0-npm', '12.1.0-npm ',
    '1234567.0.0-npm', `1.0.0-${'a'.repeat(21)}`, '1.0.0-np.m', '',
  ])('%j is not', (v) => {
    expect(isClientVersion(v)).toBe(false);
  });
  it('is at most 20 characters of source', () => {
    expect(isClientVersion(`1.0.0-${'a'.repeat(20)}`)).toBe(true);
  });

  it('an imported record may carry one (a database written by this endpoint holds them)', () => {
    const line = (v: unknown) => JSON.stringify({ seq: 1, receivedAt: '2026-11-28T00:00:00Z', type: 'incoming', platform: 'universal', platformKind: 'universal', v, bot: 'b', body: {} });
    expect(parseRecordLine(line('12.1.0-npm'))).toMatchObject({ v: '12.1.0-npm' });
    expect(parseRecordLine(line('10.1.1-rest'))).toMatchObject({ v: '10.1.1-rest' });
    expect(parseRecordLine(line(null))).toMatchObject({ v: null });
    expect(parseRecordLine(line('not a version'))).toBeUndefined();
    expect(parseRecordLine(line(12))).toBeUndefined();
  });
});
