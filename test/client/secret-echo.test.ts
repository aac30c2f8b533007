/**
 * An endpoint that echoes secrets back, in any encoding: neither the key nor any access token the
 * client has seen (however many) appears in an error, its cause, its stack or a log line.
 */
import util from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, type TrackingError } from '../../src/index.js';
import { scrub, secretForms } from '../../src/client/redact.js';
import { startSink, type Sink } from '../helpers/sink.js';

const KEY = 'sk_live/Ab+Cd ef"gh';
let sink: Sink;
beforeEach(async () => {
  sink = await startSink();
});
afterEach(async () => {
  await sink.close();
});

describe('scrub', () => {
  it('masks a secret raw, percent-encoded (either case), form-encoded and JSON-escaped', () => {
    const forms = [KEY, encodeURIComponent(KEY), encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()), encodeURIComponent(KEY).replace(/%20/g, '+'), JSON.stringify(KEY).slice(1, -1)];
    for (const form of forms) expect(scrub(`the key was ${form} here`, [KEY])).toBe('the key was *** here');
    expect(secretForms(KEY)).toContain('sk_live%2FAb%2BCd%20ef%22gh');
    expect(secretForms(KEY)).toContain('sk_live%2fAb%2bCd%20ef%22gh');
    expect(secretForms(KEY)).toContain('sk_live%2FAb%2BCd+ef%22gh');
  });
});

describe('a client whose endpoint echoes secrets back', () => {
  it('shows neither the key nor the 100th access token it saw, in any form, in errors, causes, stacks or logs', async () => {
    sink.behave((request) => {
      const token = request.body?.qs?.access_token ?? '';
      const echo = `key=${encodeURIComponent(request.query.apiKey)} raw=${request.query.apiKey} token=${encodeURIComponent(token)} form=${encodeURIComponent(token).replace(/%20/g, '+')} json=${JSON.stringify({ token })}`;
      return { status: 400, body: echo };
    });
    const lines: string[] = [];
    const log = (_o: unknown, msg?: string) => void lines.push(msg ?? '');
    const errors: TrackingError[] = [];
    const client = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: { debug: log, info: log, warn: log, error: log }, debug: true, onError: (e) => errors.push(e) });
    const tokens = Array.from({ length: 100 }, (_, i) => `EAAGpage/token+${i} "x"`);
    for (const [i, token] of tokens.entries()) {
      await client.messenger.logOutgoing({ json: { recipient: { id: `psid-${i}` }, message: { text: 'hi' } }, qs: { access_token: token }, uri: 'https://graph.example/me/messages' }).catch(() => undefined);
    }
    await client.close();
    expect(errors).toHaveLength(100);
    expect(sink.requests[99].body.qs.access_token).toBe(tokens[99]); // it went over the wire, where it belongs
    const output = [...lines, ...errors.flatMap((e) => [e.message, e.stack ?? '', util.inspect(e, { depth: 5 }), String((e as { cause?: unknown }).cause ?? '')])].join('\n');
    for (const secret of [KEY, tokens[0], tokens[63], tokens[64], tokens[99]]) {
      for (const form of secretForms(secret)) expect(output).not.toContain(form);
    }
    expect(output).toContain('***');
  });
});
