/**
 * The page by keyboard alone, in a real headless Chromium over the generated dataset: Tab reaches
 * the views, the filter, the controls of each card and the transcripts, Enter and Space work
 * them, and whatever has the focus shows it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startDatasetEndpoint, usePages } from './harness.js';

let endpoint: Awaited<ReturnType<typeof startDatasetEndpoint>>;
const pages = usePages();

beforeAll(async () => {
  endpoint = await startDatasetEndpoint();
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
});

/** What has the focus: its tag, text or label, and whether it shows a focus ring (an outline at least 2 px wide). */
function focused(page: Page): Promise<{ tag: string; name: string; ring: boolean; selector: string }> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { tag: 'body', name: '', ring: true, selector: 'body' };
    const style = getComputedStyle(element);
    const ring = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    const name = element.getAttribute('aria-label') || (element.textContent ?? '').trim().slice(0, 60) || element.getAttribute('name') || '';
    const selector = `${element.tagName.toLowerCase()}${element.getAttribute('data-view') ? `[data-view=${element.getAttribute('data-view')}]` : ''}${element.getAttribute('data-id') ? `[data-id=${element.getAttribute('data-id')}]` : ''}`;
    return { tag: element.tagName.toLowerCase(), name, ring, selector };
  });
}

/**
 * Presses Tab until `wanted` has the focus (at most `max` times), checking at each stop that the
 * focus is visible. Returns the stops passed.
 */
async function tabTo(page: Page, wanted: (stop: { tag: string; name: string; selector: string }) => boolean, max = 80): Promise<string[]> {
  const stops: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const stop = await focused(page);
    stops.push(`${stop.selector} "${stop.name}"`);
    expect(stop.ring, `focus ring on ${stop.selector} "${stop.name}"`).toBe(true);
    if (wanted(stop)) return stops;
  }
  throw new Error(`Tab never reached it; stops: ${stops.join(', ')}`);
}

it('switches views and opens a transcript with Tab and Enter, the focus always visible', async () => {
  const { page } = await pages.open(endpoint.url);
  await page.goto(`${endpoint.url}/#view=users&bot=pizza`);
  await page.locator('[data-table="active-users"] tbody tr').first().waitFor({ state: 'attached' });

  // The first stop skips to the view.
  const first = await tabTo(page, () => true, 1);
  expect(first[0]).toContain('Skip to the view');

  await tabTo(page, (stop) => stop.selector === 'a[data-view=messages]');
  await page.keyboard.press('Enter');
  await page.locator('.views a[data-view="messages"][aria-current="page"]').waitFor();
  await page.locator('[data-table="unhandled"] tbody tr').first().waitFor({ state: 'attached' });

  // From the Messages link, Tab goes on to the next views' links: open Transcripts.
  await tabTo(page, (stop) => stop.selector === 'a[data-view=conversations]', 6);
  await page.keyboard.press('Enter');
  await page.locator('.list .row').first().waitFor();
  const stops = await tabTo(page, (stop) => stop.selector === 'button[data-id=b1-1]');
  // On the way: the filter, the list's tabs, the intent and the search.
  expect(stops.join(' ')).toMatch(/Bot.*Conversations.*Users.*intent.*Search/is);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('.transcript-head h2').textContent()).toBe('Conversation b1-1');
  await page.locator('.entry.incoming .text', { hasText: 'Order' }).waitFor();

  // Into the transcript: a record's platformJson opens with Enter (even when the record is slow to come).
  await page.route('**/api/record?*', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    await route.continue();
  });
  await tabTo(page, (stop) => stop.name === 'platformJson');
  await page.keyboard.press('Enter');
  // The record is read when the toggle opens ("Loading…" until then): wait for it.
  await expect.poll(() => page.locator('pre.json').first().textContent()).toContain('"channelId": "webchat"');
});

it('works a card\'s controls by keyboard: the interval, the table instead of the chart, and a funnel step', async () => {
  const { page } = await pages.open(endpoint.url);
  await page.goto(`${endpoint.url}/#view=users&bot=pizza`);
  await page.locator('[data-table="active-users"] tbody tr').first().waitFor({ state: 'attached' });

  await tabTo(page, (stop) => stop.name === 'Month');
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('[data-table="active-users"] tbody tr').count()).toBe(1);
  await tabTo(page, (stop) => stop.name === 'Show table', 3);
  await page.keyboard.press('Space');
  // The table shows instead of the chart; the toggle now offers the chart back.
  await expect.poll(() => page.locator('[data-table="active-users"]').isVisible()).toBe(true);
  await expect.poll(() => page.locator('[data-chart="active-users"]').count()).toBe(0);
  await expect.poll(() => page.locator('[data-card="active-users"] .toggle').textContent()).toBe('Show chart');

  await page.goto(`${endpoint.url}/#view=flow&bot=pizza`);
  await page.locator('.funnel-step').first().waitFor();
  await tabTo(page, (stop) => stop.name.startsWith('Remove step 3'));
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('.funnel-step').count()).toBe(2);
});
