/**
 * Messenger page access tokens never reach the database (store/tokens.ts), and a PostgreSQL URL
 * shown to users never shows its password (store/postgres.ts).
 */
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_MARKER, stripAccessTokens } from '../../src/store/tokens.js';
import { redactDatabaseUrl } from '../../src/store/postgres.js';

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
