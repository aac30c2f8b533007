/**
 * The page on an endpoint that listens beyond loopback, in a real headless Chromium: it signs in
 * with a reader token typed into the page (kept in sessionStorage, sent as a bearer header on
 * every read, the live stream included; never in a URL or in the endpoint's log), says who is
 * signed in and signs out; a reader of one bot sees only that bot; card numbers show masked.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { TrackingClient } from 'botbuilder-conversation-analytics';
import { KEY, launchBrowser, openPage, startEndpoint, type WatchedPage } from './harness.js';

const SUPPORT_KEY = 'page-support-write-key-2';
const READER = 'page-reader-token-1';
const PIZZA_READER = 'page-pizza-reader-token-2';
const STORAGE = 'conversation-analytics.reader-token';

let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
let origin: string;
let browser: Browser;
let watched: WatchedPage | undefined;
const log: string[] = [];

/** Card numbers as users type them: the valid ones (Luhn) must show masked, the invalid one as typed. */
const CARD_TEXT = 'my card is 4111 1111 1111 1111, the old one 5555-5555-5555-4444, not 4111 1111 1111 1112';
const CARD_SHOWN = 'my card is •••• 1111, the old one •••• 4444, not 4111 1111 1111 1112';

beforeAll(async () => {
  [endpoint, browser] = await Promise.all([
    startEndpoint({ host: '0.0.0.0', apiKeys: [`pizza=${KEY}`, `support=${SUPPORT_KEY}`], readers: [`web=${READER}`, `pz=${PIZZA_READER}:pizza`], log: (line) => log.push(line) }),
    launchBrowser(),
  ]);
  origin = `http://127.0.0.1:${endpoint.port}`;
  const pizza = new TrackingClient({ apiKey: KEY, baseUrl: origin, logger: false });
  await pizza.universal.logIncoming({ text: 'hello from afar', userId: 'remote-user' });
  await pizza.universal.logIncoming({ text: CARD_TEXT, userId: 'card-user', platformJson: { conversation: { id: 'card-conv' }, payment: { card: { number: '4012-8888-8888-1881' }, ref: '4012 8888 8888 1882' } } });
  await pizza.close();
  const support = new TrackingClient({ apiKey: SUPPORT_KEY, baseUrl: origin, logger: false });
  await support.universal.logIncoming({ text: 'a support-only message', userId: 'support-user' });
  await support.close();
}, 30_000);

afterEach(async () => {
  await watched?.close();
  watched = undefined;
});

afterAll(async () => {
  await browser?.close();
  await endpoint?.close();
});

/** Opens the page at `/` (and `hash`): it shows the sign-in form. */
async function openSignIn(hash = ''): Promise<WatchedPage> {
  watched = await openPage(browser, origin);
  const res = await watched.page.goto(`${origin}/${hash}`);
  expect(res?.status()).toBe(200);
  await watched.page.getByLabel('Reader token').waitFor();
  return watched;
}

async function signIn({ page }: WatchedPage, token: string): Promise<void> {
  await page.getByLabel('Reader token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The refusals a page sees while signing in: 401s of /api/access, which Chromium logs as console errors. */
const beyond401 = (problems: string[]) => problems.filter((p) => !p.includes('401'));

describe('signing in', () => {
  it('says so when the token is wrong or a write key, showing no data and keeping nothing', async () => {
    const { page, problems } = await openSignIn();
    await expect(page.locator('main.notice').textContent()).resolves.toContain('Reading this endpoint needs a reader token.');
    expect(await page.locator('.sign-in-error').count()).toBe(0);
    for (const token of ['some-other-token', KEY, `${READER}x`]) {
      await signIn(watched!, token);
      await expect.poll(() => page.locator('.sign-in-error').textContent()).toContain('not one of this endpoint\'s reader tokens (write keys cannot read)');
      expect(await page.content()).not.toContain(token);
      await expect(page.getByLabel('Reader token').inputValue()).resolves.toBe('');
    }
    expect(await page.locator('.list, .topbar').count()).toBe(0);
    expect(await page.evaluate((key) => [sessionStorage.getItem(key), localStorage.length, document.cookie], STORAGE)).toEqual([null, 0, '']);
    expect(beyond401(problems)).toEqual([]);
  });

  it('with a reader token: loads the views, reading with it as a bearer header (live stream too), never in a URL or the log; says who is signed in; keeps it for the tab; signs out', async () => {
    const { page, requests, problems } = await openSignIn('?key=left-by-an-old-link');
    // A token left in the address by an old link is taken out of it, and not used.
    expect(new URL(page.url()).search).toBe('');
    const authorization: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/')) authorization.push(`${new URL(request.url()).pathname} ${request.headers().authorization ?? '(none)'}`);
    });
    await signIn(watched!, READER);
    await page.locator('[data-table="active-users"] tbody tr').first().waitFor({ state: 'attached' });
    await page.locator('.live[data-status="live"]').waitFor();
    await expect(page.locator('.account').textContent()).resolves.toBe('Signed in as web (every bot)Sign out');
    await page.locator('.views a[data-view="conversations"]').click();
    await page.locator('.row[data-id="remote-user"]').click();
    await page.locator('.entry.incoming .text', { hasText: 'hello from afar' }).waitFor();

    // An export is read with the token in a header too, and saved from memory.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download this transcript as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('transcript-remote-user.csv');
    expect(await readFile(await download.path(), 'utf8')).toContain('hello from afar');

    // Every read after signing in carried the token, the live stream's included; none was asked without.
    const signedIn = authorization.slice(authorization.findIndex((a) => a.endsWith(`Bearer ${READER}`)));
    expect(signedIn.length).toBeGreaterThanOrEqual(6);
    expect(signedIn.filter((a) => !a.endsWith(`Bearer ${READER}`))).toEqual([]);
    expect(signedIn.some((a) => a.startsWith('/api/events '))).toBe(true);
    expect(requests.filter((url) => url.includes(READER) || url.includes('left-by-an-old-link'))).toEqual([`${origin}/?key=left-by-an-old-link`]);
    const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    expect(hrefs.filter((href) => href.includes(READER))).toEqual([]);
    expect(await page.evaluate((key) => [sessionStorage.getItem(key), localStorage.length, document.cookie], STORAGE)).toEqual([READER, 0, '']);

    // Reloaded, the tab is still signed in: no form.
    await page.reload();
    await page.locator('.account[data-reader="web"]').waitFor();
    expect(await page.getByLabel('Reader token').count()).toBe(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Reader token').waitFor();
    expect(await page.evaluate((key) => sessionStorage.getItem(key), STORAGE)).toBeNull();
    await page.reload();
    await page.getByLabel('Reader token').waitFor();
    expect(log.filter((line) => line.includes(READER))).toEqual([]);
    expect(beyond401(problems)).toEqual([]);
  });

  it('asks again, saying why, when the token kept for the tab is no longer accepted', async () => {
    watched = await openPage(browser, origin);
    await watched.page.addInitScript((key) => sessionStorage.setItem(key, 'a-withdrawn-token'), STORAGE);
    await watched.page.goto(`${origin}/`);
    await expect.poll(() => watched!.page.locator('.sign-in-error').textContent()).toBe('Your reader token is no longer accepted; sign in again.');
    expect(await watched.page.evaluate((key) => sessionStorage.getItem(key), STORAGE)).toBeNull();
  });
});

describe('a token withdrawn while the page reads', () => {
  it('brings the sign-in form back, saying why, at the first read answered 401 (the endpoint restarted without that reader)', async () => {
    const first = await startEndpoint({ host: '0.0.0.0', readers: ['old=withdrawn-later-token'] });
    const port = first.port;
    let second: Awaited<ReturnType<typeof startEndpoint>> | undefined;
    try {
      watched = await openPage(browser, `http://127.0.0.1:${port}`);
      await watched.page.goto(`http://127.0.0.1:${port}/`);
      await signIn(watched, 'withdrawn-later-token');
      await watched.page.locator('.live[data-status="live"]').waitFor();
      await first.close();
      second = await startEndpoint({ host: '0.0.0.0', port, readers: ['new=another-token'] });
      // The live stream reconnects, is answered 401, and the page signs out.
      await expect.poll(() => watched!.page.locator('.sign-in-error').textContent(), { timeout: 15_000 }).toBe('Your reader token is no longer accepted; sign in again.');
      expect(await watched.page.evaluate((key) => sessionStorage.getItem(key), STORAGE)).toBeNull();
      expect(await watched.page.locator('.topbar').count()).toBe(0);
    } finally {
      await second?.close();
      await first.close().catch(() => undefined);
    }
  });
});

describe('a reader of the pizza bot', () => {
  it('is offered only its bot in the filter and sees only its users; card numbers show masked in the transcript, the search and the record\'s JSON', async () => {
    const { page, problems } = await openSignIn('#view=conversations&list=users');
    await signIn(watched!, PIZZA_READER);
    await expect.poll(() => page.locator('.account').textContent()).toBe('Signed in as pz (pizza)Sign out');
    await page.locator('.row[data-id="card-user"]').waitFor();
    await expect(page.locator('#filter-bot option').allTextContents()).resolves.toEqual(['All bots', 'pizza']);
    await expect(page.locator('.list .row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id')).sort())).resolves.toEqual(['card-user', 'remote-user']);
    expect(await page.content()).not.toContain('support-only');

    await page.locator('.row[data-id="card-user"]').click();
    await expect.poll(() => page.locator('.entry.incoming .text').textContent()).toBe(CARD_SHOWN);
    await page.locator('.entry.incoming .json-toggle').click();
    // The record is fetched when the toggle opens ("Loading…" until then).
    await expect.poll(() => page.locator('.entry.incoming .json').textContent()).toContain('•••• 1881');
    const json = await page.locator('.entry.incoming .json').textContent();
    expect(json).toContain('4012 8888 8888 1882');
    expect(json).not.toContain('4012-8888-8888-1881');

    await page.getByLabel('Search transcripts').fill('card');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('.list .result .result-text').allTextContents()).toEqual([CARD_SHOWN]);
    for (const valid of ['4111 1111 1111 1111', '5555-5555-5555-4444', '4012-8888-8888-1881']) expect(await page.content()).not.toContain(valid);
    expect(beyond401(problems)).toEqual([]);
  });
});
