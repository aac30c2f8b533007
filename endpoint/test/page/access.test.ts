/**
 * The page on an endpoint that listens beyond loopback, in a real headless Chromium: it asks
 * for one of the endpoint's keys, then reads with it as a bearer header, never in a URL.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { TrackingClient } from 'botbuilder-conversation-analytics';
import { KEY, launchBrowser, openPage, startEndpoint, type WatchedPage } from './harness.js';

let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
let origin: string;
let browser: Browser;
let watched: WatchedPage | undefined;

beforeAll(async () => {
  [endpoint, browser] = await Promise.all([startEndpoint({ host: '0.0.0.0', readers: [`web=${READER}`] }), launchBrowser()]);
  origin = `http://127.0.0.1:${endpoint.port}`;
  const client = new TrackingClient({ apiKey: KEY, baseUrl: origin, logger: false });
  await client.universal.logIncoming({ text: 'hello from afar', userId: 'remote-user' });
  await client.close();
}, 30_000);

afterEach(async () => {
  await watched?.close();
  watched = undefined;
});

afterAll(async () => {
  await browser?.close();
  await endpoint?.close();
});

const READER = 'page-reader-token-1';

it('asks for a reader token, then shows the data, sending it as a bearer header and never in a read\'s URL', async () => {
  watched = await openPage(browser, origin);
  const { page } = watched;
  const authorization: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/api/')) authorization.push(request.headers().authorization ?? '(none)');
  });
  const first = await page.goto(`${origin}/`);
  expect(first?.status()).toBe(401);
  await page.getByLabel('Reader token').fill(READER);
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('[data-table="active-users"] tbody tr').first().waitFor({ state: 'attached' });
  await page.locator('.live[data-status="live"]').waitFor();
  await page.locator('.views a[data-view="conversations"]').click();
  await page.locator('.row[data-id="remote-user"]').waitFor();
  await page.locator('.entry.incoming .text', { hasText: 'hello from afar' }).waitFor();

  // An export is read with the key in a header too, and saved from memory.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download this transcript as CSV' }).click()]);
  expect(download.suggestedFilename()).toBe('transcript-remote-user.csv');
  expect(await readFile(await download.path(), 'utf8')).toContain('hello from afar');

  const reads = watched.requests.filter((url) => new URL(url).pathname.startsWith('/api/'));
  expect(reads.length).toBeGreaterThanOrEqual(5);
  expect(reads.some((url) => url.includes('/api/transcript?') && url.includes('format=csv'))).toBe(true);
  expect(reads.filter((url) => url.includes(READER))).toEqual([]);
  expect(new Set(authorization)).toEqual(new Set([`Bearer ${READER}`]));
  // The page itself was asked for with the key, and nothing else was; no link the page wrote holds
  // it (the views' links are #hashes within the page; the exports' are /api/… addresses).
  expect(watched.requests.filter((url) => url.includes(READER))).toEqual([`${origin}/?key=${READER}`]);
  const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
  expect(hrefs.filter((href) => href.startsWith('#view='))).toHaveLength(6);
  expect(hrefs.filter((href) => href.includes('/api/transcript?'))).toHaveLength(2);
  expect(hrefs.filter((href) => href.includes(READER))).toEqual([]);
  expect(watched.problems.filter((p) => !p.includes('401'))).toEqual([]);
});

it('says so when the token is not one of the endpoint\'s reader tokens (a write key included), without showing it', async () => {
  watched = await openPage(browser, origin);
  const { page } = watched;
  for (const token of ['some-other-key', KEY]) {
    const res = await page.goto(`${origin}/?key=${token}`);
    expect(res?.status()).toBe(401);
    await expect(page.locator('main.notice').textContent()).resolves.toContain('not one of this endpoint\'s reader tokens');
    expect(await page.content()).not.toContain(token);
  }
  expect(await page.locator('.list').count()).toBe(0);
});
