/**
 * An endpoint that echoes secrets back, in any encoding: neither the key nor any access token the
 * client has seen (however many, however short, from a new record or one re-sent from persistDir)
 * appears in an error, its cause, its stack or a log line. The encodings are built here, from the
 * standards, not from the implementation's own idea of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrackingClient, type Logger, type TrackingError } from '../../src/index.js';
import { scrub } from '../../src/client/redact.js';
import { startSink, type Sink } from '../helpers/sink.js';

/** Every character that encoders treat differently: `URLSearchParams` encodes `!'()~`, `encodeURIComponent` does not; `/`, `+`, space, `"`. */
const KEY = 'sk(live)!key\'~x/Ab+Cd ef"gh';

/** The ways a secret comes back in text from elsewhere. */
function encodings(secret: string): string[] {
  const percent = encodeURIComponent(secret);
  const form = new URLSearchParams({ s: secret }).toString().slice(2); // what the client puts in its URLs
  const json = JSON.stringify(secret).slice(1, -1);
  const unicode = [...secret].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  const half = Math.floor(secret.length / 2);
  return [
    secret,
    percent,
    percent.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    form,
    form.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    json,
    json.replace(/\//g, '\\/'), // JSON may escape the slash
    unicode,
    unicode.toUpperCase().replace(/\\U/g, '\\u'),
    secret.slice(0, half) + encodeURIComponent(secret.slice(half)), // a mix
  ];
}

let sink: Sink;
beforeEach(async () => {
  sink = await startSink();
});
afterEach(async () => {
  await sink.close();
});

function collect(): { logger: Logger; lines: string[]; errors: TrackingError[]; onError: (e: TrackingError) => void } {
  const lines: string[] = [];
  const log = (fields: unknown, msg?: string) => void lines.push(`${msg ?? ''} ${JSON.stringify(fields)}`);
  const errors: TrackingError[] = [];
  return { logger: { debug: log, info: log, warn: log, error: log }, lines, errors, onError: (e) => void errors.push(e) };
}

function everything(lines: string[], errors: TrackingError[]): string {
  return [...lines, ...errors.flatMap((e) => [e.message, e.stack ?? '', util.inspect(e, { depth: 5, showHidden: true }), String((e as { cause?: unknown }).cause ?? '')])].join('\n');
}

/**
 * An endpoint that answers 400 with the record's access token and the key, the n-th request in
 * the n-th encoding (round the list): the client keeps only the start of a response body, so one
 * encoding per answer makes sure each is seen in full.
 */
function echoSecrets(request: { query: Record<string, string>; body: any }, index: number) {
  const token: string = request.body?.qs?.access_token ?? '';
  const keyForms = encodings(request.query.apiKey);
  const tokenForms = token === '' ? [''] : encodings(token);
  return { status: 400, body: `token ${tokenForms[index % tokenForms.length]} key ${keyForms[index % keyForms.length]}` };
}

describe('scrub', () => {
  it('masks a secret in every encoding: raw, percent- and form-encoded as URLSearchParams does it (either hex case), JSON-escaped (\\" \\/ \\uXXXX), and mixed', () => {
    for (const form of encodings(KEY)) expect(scrub(`the key was ${form} here`, [KEY])).toBe('the key was *** here');
    expect(encodings(KEY)).toContain('sk%28live%29%21key%27%7Ex%2FAb%2BCd+ef%22gh');
  });

  it('masks a configured secret however short', () => {
    expect(scrub('key=k9z; again: k9z', ['k9z'])).toBe('key=***; again: ***');
  });
});

describe('a client whose endpoint echoes secrets back', () => {
  it('shows neither the key nor the 100th access token it saw, in any encoding, in errors, causes, stacks or logs', async () => {
    sink.behave(echoSecrets);
    const { logger, lines, errors, onError } = collect();
    const client = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger, debug: true, onError });
    const tokens = Array.from({ length: 100 }, (_, i) => `EAAGpage/token+${i} "x"(y)!`);
    for (const [i, token] of tokens.entries()) {
      await client.messenger.logOutgoing({ json: { recipient: { id: `psid-${i}` }, message: { text: 'hi' } }, qs: { access_token: token }, uri: 'https://graph.example/me/messages' }).catch(() => undefined);
    }
    await client.close();
    expect(errors).toHaveLength(100);
    expect(sink.requests[99].body.qs.access_token).toBe(tokens[99]); // it went over the wire, where it belongs
    expect(sink.requests[99].query.apiKey).toBe(KEY);
    const output = everything(lines, errors);
    expect(output).toContain('***');
    for (const secret of [KEY, tokens[0], tokens[63], tokens[64], tokens[99]]) {
      for (const form of encodings(secret)) expect(output).not.toContain(form);
    }
  });

  it('masks a key of three characters too', async () => {
    sink.behave(echoSecrets);
    const { logger, lines, errors, onError } = collect();
    const client = new TrackingClient({ apiKey: 'k9z', baseUrl: sink.url, logger, onError });
    await client.sms.logIncoming({ text: 'hi', userId: 'u' }).catch(() => undefined);
    await client.close();
    expect(errors).toHaveLength(1);
    expect(everything(lines, errors)).not.toContain('k9z');
  });

  it('masks the access tokens of records it re-sends from persistDir, which it never saw logged', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bca-echo-'));
    try {
      const tokens = Array.from({ length: 10 }, (_, i) => `EAAGsaved/token+${i} "a"(b)!`);
      const lines = tokens.map((token, i) =>
        JSON.stringify({ platform: 'messenger', type: 'outgoing', at: [1, i + 1], body: { json: { recipient: { id: 'psid-saved' }, message: { text: 'saved' } }, qs: { access_token: token }, uri: 'https://graph.example/me/messages' } }),
      );
      fs.writeFileSync(path.join(dir, 'records-1-earlier.ndjson'), `${lines.join('\n')}\n`);
      sink.behave(echoSecrets);
      const collected = collect();
      const client = new TrackingClient({ apiKey: KEY, baseUrl: sink.url, logger: collected.logger, debug: true, onError: collected.onError, persistDir: dir });
      const until = Date.now() + 5_000;
      while (collected.errors.length < tokens.length && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      await client.close();
      expect(collected.errors.map((e) => (e as { reason?: string }).reason)).toEqual(tokens.map(() => 'rejected'));
      expect(sink.requests.map((r) => r.body.qs.access_token)).toEqual(tokens); // sent as saved, in order
      const output = everything(collected.lines, collected.errors);
      for (const token of tokens) for (const form of encodings(token)) expect(output).not.toContain(form);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Every run of `length` characters of `text`: what a partly shown secret would leave in the output. */
function pieces(text: string, length: number): string[] {
  return Array.from({ length: Math.max(0, text.length - length + 1) }, (_, i) => text.slice(i, i + length));
}

describe('an echoed answer cut to a short excerpt', () => {
  const key = 'sk_live/Ab+Cd"ef gh-0123456789'; // 30 characters, some encoded differently by each form
  const token = 'EAAG/page+tok"en 7-ZYWVUTSRQP';
  const forms = (secret: string) => ({ raw: secret, percent: encodeURIComponent(secret), json: JSON.stringify(secret).slice(1, -1) });
  const EXCERPT = 300; // how much of an answer a refusal's message shows

  /** Logs one record on a client of its own (so its first warning is written), the endpoint answering 400 with `body`; returns all it showed. */
  async function refusedWith(body: string): Promise<string> {
    sink.behave(() => ({ status: 400, body }));
    const { logger, lines } = collect();
    const client = new TrackingClient({ apiKey: key, baseUrl: sink.url, logger, debug: true });
    const record = { json: { recipient: { id: 'psid-1' }, message: { text: 'hi' } }, qs: { access_token: token }, uri: 'https://graph.example/me/messages' };
    const error = await client.messenger.logOutgoing(record).then(
      () => undefined,
      (e: TrackingError) => e,
    );
    await client.close();
    expect(error?.message).toContain('HTTP 400');
    return everything(lines, error === undefined ? [] : [error]);
  }

  it('shows no 8 characters of the key or an access token, raw, percent-encoded or JSON-escaped, whichever character the cut falls on', async () => {
    for (const secret of [key, token]) {
      for (const [name, form] of Object.entries(forms(secret))) {
        for (let before = 1; before < form.length; before++) {
          // The secret starts `before` characters before the cut: the cut falls inside it.
          const output = await refusedWith(`${'x'.repeat(EXCERPT - before)}${form} and more`);
          for (const piece of [...pieces(form, 8), ...pieces(secret, 8)]) {
            expect(output, `${name} form cut after ${before} characters`).not.toContain(piece);
          }
        }
      }
    }
  });

  it('shows none of a secret the transport cut off at the end of the body it keeps (2,048 characters), behind secrets masked before it', async () => {
    // 66 keys in a row are masked to 198 characters: what the transport kept ends within the excerpt.
    const masked = key.repeat(66);
    for (const [name, form] of Object.entries(forms(token))) {
      for (const before of [1, 5, 12, form.length - 1]) {
        const output = await refusedWith(`${masked}${'x'.repeat(2048 - masked.length - before)}${form} and more`);
        expect(output).toContain('***');
        for (const piece of [...pieces(form, 8), ...pieces(token, 8), ...pieces(forms(key)[name as 'raw'], 8)]) {
          expect(output, `${name} form cut after ${before} characters`).not.toContain(piece);
        }
      }
    }
  });
});
