/**
 * The page while the endpoint's views catch up after a burst (issue 26, part 2), in a real
 * headless Chromium: the reads waited for the views past `maxReadWaitMs` and are answered 503
 * with `catchingUp`; the page says "Catching up — N records to go" rather than an error, asks
 * again after each `Retry-After`, and shows the figures once the views caught up.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { TrackingClient } from 'botbuilder-conversation-analytics';
import { KEY, launchBrowser, openPage, startEndpoint, type WatchedPage } from './harness.js';

let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
let browser: Browser;
let watched: WatchedPage | undefined;

interface Projection {
  plan(): { limit: number; share: number };
  running?: Promise<void>;
}

beforeAll(async () => {
  [endpoint, browser] = await Promise.all([startEndpoint({ maxReadWaitMs: 300 }), launchBrowser()]);
}, 30_000);

afterEach(async () => {
  await watched?.close();
  watched = undefined;
});

afterAll(async () => {
  await browser?.close();
  await endpoint?.close();
});

it('shows "Catching up — N records to go" instead of an error while the views catch up, then the figures', async () => {
  const projection = (endpoint.store as unknown as { projection: Projection }).projection;
  const plan = projection.plan;
  projection.plan = () => ({ limit: 0, share: 0 });
  while (projection.running) await projection.running;
  const client = new TrackingClient({ apiKey: KEY, baseUrl: endpoint.url, logger: false });
  for (let i = 0; i < 3; i++) await client.universal.logIncoming({ text: `burst ${i}`, userId: `u${i}` });
  await client.close();
  expect(await endpoint.store.count()).toBe(3);

  watched = await openPage(browser, endpoint.url);
  const { page } = watched;
  await page.goto(`${endpoint.url}/`);
  const banner = page.locator('.banner.catching-up');
  await banner.waitFor();
  expect((await banner.textContent())?.trim()).toBe('Catching up — 3 records to go. The figures follow as soon as they are in.');
  expect(await banner.getAttribute('role')).toBe('status');
  expect(await page.locator('.banner[role="alert"]').count()).toBe(0);
  // It asks again after each Retry-After (1 s), and is answered once the views are built.
  await page.waitForTimeout(1_500);
  const asked = watched.requests.filter((url) => new URL(url).pathname === '/api/summary').length;
  expect(asked).toBeGreaterThanOrEqual(3);
  projection.plan = plan;
  await page.locator('.kpi[data-kpi="records"][data-value="3"]').waitFor();
  await banner.waitFor({ state: 'detached' });
  expect(await page.locator('.banner').count()).toBe(0);
  // Chromium logs each 503 answer as a failed resource; nothing else went wrong.
  expect(watched.problems.filter((p) => !p.includes('status of 503'))).toEqual([]);
});
