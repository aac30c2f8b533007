/**
 * Messenger page access tokens never reach the database (store/tokens.ts), and a PostgreSQL URL
 * shown to users never shows its password (store/postgres.ts).
 */
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_MARKER, stripAccessTokens } from '../../src/store/tokens.js';
import { openStore } from '../../src/store/open.js';
import { redactDatabaseUrl, scrubDatabaseSecrets } from '../../src/store/postgres.js';

const MARKER = encodeURIComponent(ACCESS_TOKEN_MARKER);

describe('a messenger record\'s page access token', () => {
  it('is replaced in qs.access_token, and the change reported', () => {
    const body = { json: { message: { text: 'hi' } }, qs: { access_token: 'EAA-secret', other: 1 } };
    expect(stripAccessTokens(body)).toBe(true);
    expect(body).toEqual({ json: { message: { text: 'hi' } }, qs: { access_token: ACCESS_TOKEN_MARKER, other: 1 } });
  });

  it('is replaced in the uri\'s query, wherever it stands and whatever its case, keeping the rest', () => {
    const body = { uri: 'https://graph.facebook.com/v2.6/me/messages?access_token=EAA-1&x=2#frag' };
    expect(stripAccessTokens(body)).toBe(true);
    expect(body.uri).toBe(`https://graph.facebook.com/v2.6/me/messages?access_token=${MARKER}&x=2#frag`);
    const second = { uri: 'https://g/me?x=1&ACCESS_TOKEN=EAA-2&access_token=EAA-3' };
    stripAccessTokens(second);
    expect(second.uri).toBe(`https://g/me?x=1&ACCESS_TOKEN=${MARKER}&access_token=${MARKER}`);
  });

  it('is replaced in both places at once', () => {
    const body = { uri: 'https://g/me?access_token=EAA', qs: { access_token: 'EAA' } };
    expect(stripAccessTokens(body)).toBe(true);
    expect(JSON.stringify(body)).not.toContain('EAA');
  });

  it('leaves a record without one, or already stripped, unchanged and says so', () => {
    for (const body of [
      { qs: { access_token: ACCESS_TOKEN_MARKER } },
      { qs: { access_token: 5 } },
      { qs: 'access_token=x' },
      { uri: 'https://g/me?token=x&my_access_token=y' },
      { uri: 'https://g/access_token=x' },
      { uri: 5 },
      { uri: ['https://g/me?access_token=x'] },
      {},
    ]) {
      const before = JSON.stringify(body);
      expect(stripAccessTokens(body), before).toBe(false);
      expect(JSON.stringify(body)).toBe(before);
    }
    for (const body of [null, 'text', [{ qs: { access_token: 'x' } }]]) expect(stripAccessTokens(body)).toBe(false);
  });
});

describe('a PostgreSQL URL as shown in messages', () => {
  it('hides the password in the user part or in a password parameter, and keeps the rest', () => {
    expect(redactDatabaseUrl('postgres://bot:s3cret@db.example:5432/tracking')).toBe('postgres://bot:***@db.example:5432/tracking');
    expect(redactDatabaseUrl('postgres://bot@db/tracking?password=s3cret&sslmode=require')).toBe('postgres://bot@db/tracking?password=***&sslmode=require');
    expect(redactDatabaseUrl('postgres://bot@db/tracking')).toBe('postgres://bot@db/tracking');
    expect(redactDatabaseUrl('postgresql://db/tracking?sslmode=require')).toBe('postgresql://db/tracking?sslmode=require');
  });

  it('hides the password of a URL it cannot parse too', () => {
    expect(redactDatabaseUrl('postgres://bot:s3cr@t@[bad/tracking')).toBe('postgres://bot:***@[bad/tracking');
    expect(redactDatabaseUrl('not a url')).toBe('not a url');
  });
});

describe('a PostgreSQL URL however it is (mis)encoded', () => {
  it('hides the whole password when it holds an unencoded / (the user part runs to the last @)', () => {
    expect(redactDatabaseUrl('postgres://app:s3cr3t/Pa55+w0rd=@127.0.0.1:1/tracking')).toBe('postgres://app:***@127.0.0.1:1/tracking');
    expect(redactDatabaseUrl('postgres://app:a?b#c@d:e@host/db')).toBe('postgres://app:***@host/db');
    expect(redactDatabaseUrl('postgres://app:@host/db')).toBe('postgres://app:***@host/db');
    expect(redactDatabaseUrl('postgres://db/t?sslpassword=k1&user=a&PASSWORD=k2#x')).toBe('postgres://db/t?sslpassword=***&user=a&PASSWORD=***#x');
  });

  it('fuzz: a password of any characters (/ @ : ? # % and unencoded ones), encoded or not, never appears in the output', () => {
    const chars = fc.constantFrom(...'/@:?#%+=&;[]{} !$\'"\\^`|~<>', ...'abcXYZ019', 'é', '€', '😀');
    fc.assert(
      fc.property(
        fc.string({ unit: chars, minLength: 1, maxLength: 24 }),
        fc.constantFrom('postgres', 'postgresql'),
        fc.constantFrom('app', 'a.b-c', ''),
        fc.constantFrom('127.0.0.1:5432', 'db.example', '[::1]:1', ''),
        fc.constantFrom('/tracking', '/t?sslmode=require', '', '/db?application_name=x'),
        fc.boolean(),
        (raw, scheme, user, host, rest, encode) => {
          const password = `Q7${raw}Z`; // a mark the rest of the URL cannot hold
          const written = encode ? encodeURIComponent(password) : password;
          const url = `${scheme}://${user}:${written}@${host}${rest}`;
          const shown = redactDatabaseUrl(url);
          expect(shown).not.toContain(written);
          expect(shown).not.toContain('Q7');
          expect(shown).toBe(`${scheme}://${user}:***@${host}${rest}`);
          const said = scrubDatabaseSecrets(`could not connect to ${url}: password ${password} (${written}) refused`, url);
          expect(said).not.toContain('Q7');
          expect(said).toContain(`${scheme}://${user}:***@${host}${rest}`);
        },
      ),
      { seed: 6, numRuns: 3000 },
    );
  });

  it('fuzz: the same password in a password parameter never appears either', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'/@:?%+=;!$ abc019'), minLength: 1, maxLength: 20 }), (raw) => {
        const url = `postgres://db.example/t?sslmode=require&password=Q7${raw}Z`;
        expect(redactDatabaseUrl(url)).toBe('postgres://db.example/t?sslmode=require&password=***');
      }),
      { seed: 7, numRuns: 1000 },
    );
  });
});

describe('what opening a PostgreSQL database says when it fails', () => {
  it.each([
    ['a misencoded URL the driver cannot parse', 'postgres://app:s3cr3t/Pa55+w0rd=@127.0.0.1:1/tracking', 's3cr3t/Pa55+w0rd='],
    ['a URL with a # in the password', 'postgres://app:pw#Pa55@127.0.0.1:1/tracking', 'pw#Pa55'],
    ['a server that is not there', 'postgres://app:Pa55w0rd@127.0.0.1:1/tracking', 'Pa55w0rd'],
  ])('never holds the password, in the message or in the cause: %s', async (_, url, password) => {
    const logged: string[] = [];
    const error = await openStore({ database: url, log: (line) => logged.push(line) }).then(() => undefined, (e: unknown) => e as Error & { cause?: Error & { input?: string } });
    expect(error?.message).toContain('Cannot reach the PostgreSQL database at postgres://app:***@127.0.0.1:1/tracking (');
    for (const text of [error?.message, error?.stack, error?.cause?.message, error?.cause?.stack, error?.cause?.input, inspect(error, { depth: 5 }), ...logged]) {
      expect(text ?? '').not.toContain(password);
      expect(text ?? '').not.toContain('Pa55');
    }
  });
});
