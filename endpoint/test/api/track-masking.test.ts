/**
 * Nothing secret is stored (issue 27, points 5 and 6), on both databases: card numbers that pass
 * the Luhn check are masked at ingestion in text, buttons and anywhere in platformJson, extraInfo
 * and metadata; secret-named fields a bot leaves in its platformJson are masked; `/api/record` and
 * the transcript never serve either; `keepCardNumbers` keeps them; `mask` masks emails and phone
 * numbers too; the minute summary counts the records masked; an earlier version's data file is
 * masked as it is imported.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrackingEndpoint } from '../../src/index.js';
import { SECRET_MARKER } from '../../src/store/mask.js';
import { Q, bothDatabases, message, request, start, tempDir, track } from '../helpers.js';

/** Valid (Luhn) card numbers, as a user or a bot might write them. */
const CARDS = ['4111 1111 1111 1111', '5555-5555-5555-4444', '378282246310005', '6011 1111 1111 1117', '4222222222222'];
/** Card-like numbers that are not card numbers (bad Luhn, a timestamp, an order id): kept as sent. */
const NOT_CARDS = ['4111 1111 1111 1112', '1735812672000', 'order 1000000000000007', '5555-5555-5555-4445'];

let endpoint: TrackingEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

function cardBody(userId: string) {
  return message(userId, `my card is ${CARDS[0]}, not ${NOT_CARDS[0]}`, {
    buttons: [{ id: 'b1', label: `Pay with ${CARDS[1]}`, value: CARDS[2] }, { id: 'b2', label: NOT_CARDS[1], value: NOT_CARDS[2] }],
    platformJson: {
      channelData: { access_token: 'EAA-bot-token-1', clientActivityID: 'a1', cards: [CARDS[3], { deep: CARDS[4], n: 4111111111111111 }] },
      password: 'hunter2-pw',
      headers: { Authorization: 'Bearer bot-bearer-1' },
      other: NOT_CARDS[3],
    },
    extraInfo: { note: `card ${CARDS[4]}` },
    metadata: { paid: CARDS[0] },
  });
}

const SECRETS = ['EAA-bot-token-1', 'hunter2-pw', 'bot-bearer-1'];
const digitsOf = (card: string) => card.replace(/\D/g, '');

async function recordBody(ep: TrackingEndpoint, seq: number): Promise<Record<string, unknown>> {
  const answer = await request(ep, `/api/record?seq=${seq}`);
  expect(answer.status).toBe(200);
  return answer.body.record.body as Record<string, unknown>;
}

describe.each(bothDatabases('masking.db'))('on $name', ({ database }) => {
  it('card numbers and secret fields are masked in what is stored, in /api/record and in the transcript; the rest is kept', async () => {
    const log: string[] = [];
    endpoint = await start({ database: database(), dataFile: undefined, log: (line) => log.push(line), summaryIntervalMs: 0 });
    const userId = `card-user-${Date.now()}`;
    const answer = await track(endpoint, Q.universalIn, cardBody(userId));
    expect(answer.status).toBe(200);
    const plain = await track(endpoint, Q.universalIn, message(userId, 'nothing to hide'));
    expect(plain.status).toBe(200);

    const body = await recordBody(endpoint, answer.body.id);
    expect(body).toEqual({
      text: `my card is •••• 1111, not ${NOT_CARDS[0]}`,
      userId,
      buttons: [{ id: 'b1', label: 'Pay with •••• 4444', value: '•••• 0005' }, { id: 'b2', label: NOT_CARDS[1], value: NOT_CARDS[2] }],
      platformJson: {
        channelData: { access_token: SECRET_MARKER, clientActivityID: 'a1', cards: ['•••• 1117', { deep: '•••• 2222', n: '•••• 1111' }] },
        password: SECRET_MARKER,
        headers: { Authorization: SECRET_MARKER },
        other: NOT_CARDS[3],
      },
      extraInfo: { note: 'card •••• 2222' },
      metadata: { paid: '•••• 1111' },
    });
    // What the store holds, read directly, and every read route that shows a message.
    const stored = JSON.stringify(await endpoint.store.records({ limit: 1000 }));
    const transcript = JSON.stringify((await request(endpoint, `/api/transcript?user=${userId}`)).body);
    const search = JSON.stringify((await request(endpoint, '/api/search?q=card')).body);
    expect(transcript).toContain('my card is •••• 1111');
    for (const text of [stored, transcript, search]) {
      for (const card of CARDS) expect(text).not.toContain(digitsOf(card));
      for (const card of CARDS) expect(text).not.toContain(card);
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
    expect(await recordBody(endpoint, plain.body.id)).toEqual({ text: 'nothing to hide', userId });

    await endpoint.close();
    endpoint = undefined;
    expect(log.filter((line) => /records? accepted/.test(line))).toEqual([expect.stringMatching(/^tracking endpoint: since start: 2 records accepted \(1 masked\), 0 requests refused; /)]);
  });
});

describe('options', () => {
  it('keepCardNumbers stores card numbers as sent, but still masks secret fields; the summary counts those', async () => {
    const log: string[] = [];
    endpoint = await start({ keepCardNumbers: true, log: (line) => log.push(line), summaryIntervalMs: 0 });
    const cards = await track(endpoint, Q.universalIn, message('u1', `card ${CARDS[0]}`));
    const secret = await track(endpoint, Q.universalIn, message('u1', 'hi', { platformJson: { token: 'tok-1' } }));
    expect((await recordBody(endpoint, cards.body.id)).text).toBe(`card ${CARDS[0]}`);
    expect((await recordBody(endpoint, secret.body.id)).platformJson).toEqual({ token: SECRET_MARKER });
    await endpoint.close();
    endpoint = undefined;
    expect(log.filter((line) => /records? accepted/.test(line))).toEqual(['tracking endpoint: since start: 2 records accepted (1 masked), 0 requests refused; records kept in memory only (lost on stop).']);
  });

  it('mask: email and phone masks those too; without it they are kept; an unknown kind is refused', async () => {
    endpoint = await start({ mask: ['email', 'phone'] });
    const text = 'write to jo@example.com or call +1 (555) 123-4567';
    const masked = await track(endpoint, Q.universalIn, message('u1', text, { platformJson: { contact: { email: 'a@b.io' } } }));
    expect(await recordBody(endpoint, masked.body.id)).toEqual({ text: 'write to [email] or call [phone]', userId: 'u1', platformJson: { contact: { email: '[email]' } } });
    await endpoint.close();
    endpoint = await start();
    const kept = await track(endpoint, Q.universalIn, message('u1', text));
    expect((await recordBody(endpoint, kept.body.id)).text).toBe(text);
    await expect(start({ mask: ['email', 'ssn' as never] })).rejects.toThrow('mask takes "email" and "phone"; got "ssn".');
  });

  it('an earlier version\'s data file is masked as it is imported', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = join(dir, 'records.ndjson');
      const old = { seq: 1, receivedAt: '2025-01-02T10:11:12.000Z', platform: 'universal', platformKind: 'universal', v: '10.1.1-rest', type: 'incoming', bot: 'b', body: cardBody('old-user') };
      await writeFile(file, `${JSON.stringify(old)}\n`);
      endpoint = await start({ database: file, dataFile: undefined });
      const body = await recordBody(endpoint, 1);
      expect(body.text).toBe(`my card is •••• 1111, not ${NOT_CARDS[0]}`);
      const text = JSON.stringify(body);
      for (const card of CARDS) expect(text).not.toContain(digitsOf(card));
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    } finally {
      await endpoint?.close();
      endpoint = undefined;
      await cleanup();
    }
  });
});

