/**
 * The page's small things (issue 30, point 11), in a real headless Chromium: every count is worded
 * for its number ("1 incoming message"); a funnel step nobody dropped off at is not drawn as a
 * warning; a weekly chart says its weeks are named by their Monday ("Week of Nov 23"); the
 * filter's labels sit on one line; the Top customers table fits a phone; the flow diagram's
 * caption is plain.
 *
 * Two endpoints: the realistic live dataset (twelve weeks up to now), and a small one with two
 * bots: `one`, holding a single incoming message, and `shop`, whose two users make a funnel with a
 * drop-off of 50% and then of 0%.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startEndpoint, startLiveDatasetEndpoint, tableRows, usePages } from './harness.js';

const ONE_KEY = 'one-key-1';
const SHOP_KEY = 'shop-key-2';

let live: Awaited<ReturnType<typeof startLiveDatasetEndpoint>>;
let small: Awaited<ReturnType<typeof startEndpoint>>;
const pages = usePages();

/** Sends one record as the bot of `apiKey`, dated now. */
async function send(apiKey: string, type: string, body: Record<string, unknown>): Promise<void> {
  const query = new URLSearchParams({ platform: 'twitter', v: '11.1.0-rest', type, apiKey });
  const timestamp = new Date().toISOString();
  const dated = type === 'event' ? { ...body, extraInfo: { timestamp } } : { ...body, platformJson: { timestamp, channelId: 'webchat', conversation: { id: `c-${String(body.userId)}` } } };
  const res = await fetch(`${small.url}/track?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(dated) });
  expect(res.status, await res.text()).toBe(200);
}

beforeAll(async () => {
  [live, small] = await Promise.all([startLiveDatasetEndpoint(), startEndpoint({ apiKeys: [`one=${ONE_KEY}`, `shop=${SHOP_KEY}`] })]);
  await send(ONE_KEY, 'incoming', { userId: 'solo', text: 'hello', intent: { name: 'Greet', inputs: [] } });
  // shop: u1 greets, orders and buys; u2 only greets. Greet 2 users, Order 1 (50% dropped off), purchase 1 (0%).
  await send(SHOP_KEY, 'incoming', { userId: 'u1', text: 'hi', intent: { name: 'Greet', inputs: [] } });
  await send(SHOP_KEY, 'incoming', { userId: 'u2', text: 'hi', intent: { name: 'Greet', inputs: [] } });
  await send(SHOP_KEY, 'incoming', { userId: 'u1', text: 'a margherita', intent: { name: 'Order', inputs: [] } });
  await send(SHOP_KEY, 'event', { type: 'revenueEvent', name: 'purchase', userId: 'u1', amount: 9.5, metadata: { currency: 'EUR' } });
}, 60_000);

afterAll(async () => {
  await small?.close();
  await live?.close();
});

/** Opens `origin`'s page at `hash` and waits for `ready`. */
async function open(origin: string, hash: string, ready: string, width = 1280): Promise<Page> {
  const watched = await pages.open(origin, { width });
  await watched.page.goto(`${origin}/${hash}`);
  await watched.page.locator(ready).first().waitFor({ state: 'attached' });
  return watched.page;
}

/** A count of 1 followed by a plural noun, in what a view shows: `1 users`, `1 incoming messages`. */
const ONE_WITH_PLURAL = /(?<![\d.,])1\s+(?:incoming\s+)?(?:messages|users|sessions|conversations|records|events|ratings|replies|comments|purchases|entries)\b/;

describe('counts', () => {
  it('are worded for their number everywhere: 1 incoming message, 1 user, 1 session, 0 events', async () => {
    const page = await open(small.url, '#view=messages&bot=one', '[data-card="top-messages"] .card-note');
    await expect.poll(() => page.locator('[data-card="intents"] .card-note').textContent()).toBe('0 of 1 incoming message not handled (0%).');
    await expect(page.locator('[data-card="top-messages"] .card-note').textContent()).resolves.toBe('1 incoming message, grouped by text.');
    await expect(page.locator('[data-card="unhandled"] .card-note').textContent()).resolves.toBe('0 incoming messages were marked NotHandled.');
    // The figures at the top, each with its noun for its number.
    await expect.poll(() => page.locator('.top-figures .kpi').evaluateAll((kpis) => kpis.map((k) => (k.textContent ?? '').trim())))
      .toEqual(['1user', '1conversation', '1message', '0events', '1record']);

    await page.locator('.views a', { hasText: 'Users' }).click();
    await page.locator('[data-kpi="sessions"]').waitFor();
    await expect(page.locator('[data-kpi="sessions"] .kpi-label').textContent()).resolves.toBe('session');
    await expect(page.locator('[data-kpi="sessions"] .kpi-hint').textContent()).resolves.toBe('1 user');

    // No view says "1" before a plural noun.
    for (const [view, ready] of [['users', '[data-kpi="sessions"]'], ['flow', '[data-card="flow"] .card-note'], ['messages', '[data-card="top-messages"] .card-note'], ['feedback', '[data-kpi="ai-share"]'], ['revenue', '[data-card="revenue-totals"] .card-note'], ['conversations', '.list-total']] as const) {
      await page.goto(`${small.url}/#view=${view}&bot=one`);
      await page.locator(ready).first().waitFor();
      await expect.poll(() => page.locator('.loading').count()).toBe(0);
      const texts = await page.locator('body').evaluate((body) => [(body as HTMLElement).innerText, ...[...body.querySelectorAll('.kpi')].map((k) => [...k.children].map((c) => c.textContent).join(' '))]);
      for (const text of texts) expect(text, view).not.toMatch(ONE_WITH_PLURAL);
    }
  });
});

describe('the funnel', () => {
  it('shows a real drop-off in the warning colour, and 0% dropped off in a neutral one', async () => {
    const page = await open(small.url, `#view=flow&bot=shop&steps=${encodeURIComponent('Greet,Order,event:purchase')}`, '.drop-off');
    await expect.poll(() => page.locator('.drop-off').count()).toBe(2);
    const drops = await page.locator('.drop-off').evaluateAll((all) => all.map((p) => ({ text: (p.textContent ?? '').trim(), color: getComputedStyle(p).color })));
    const warn = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--warn').trim());
    expect(warn).toBe('#c8453c');
    expect(drops.map((d) => d.text)).toEqual(['↓ 50% dropped off (1 of 2)', '↓ 0% dropped off (0 of 1)']);
    // --warn is #c8453c.
    expect(drops[0].color).toBe('rgb(200, 69, 60)');
    expect(drops[1].color).not.toBe('rgb(200, 69, 60)');
    // The neutral one is the muted text colour of the card's notes.
    await expect(page.locator('[data-card="funnel"] .card-note').evaluate((p) => getComputedStyle(p).color)).resolves.toBe(drops[1].color);
  });
});

describe('on the live dataset', () => {
  /** Monday 00:00 UTC of the week `ms` falls in, as `Nov 23`. */
  const monday = (ms: number) => new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' })
    .format(Math.floor((ms - 4 * 86_400_000) / (7 * 86_400_000)) * 7 * 86_400_000 + 4 * 86_400_000);

  it('names a week by its Monday and says so: "Week of" on the axis and in the tooltip, this week\'s activity under this Monday', async () => {
    const page = await open(live.url, '#view=messages', '[data-table="messages-over-time"] tbody tr');
    const rows = await tableRows(page, 'messages-over-time');
    await expect(page.locator('[data-table="messages-over-time"] thead th').first().textContent()).resolves.toBe('Week of');
    // Today's messages are in the last week, named by this week's Monday.
    expect(rows.at(-1)![0]).toBe(monday(Date.now()));
    const chart = page.locator('[data-chart="messages-over-time"]');
    await chart.locator('svg path').first().waitFor({ state: 'attached' });
    const drawn = await chart.locator('svg text').allTextContents();
    const weeks = drawn.filter((text) => /^Week of /.test(text));
    expect(weeks.length).toBeGreaterThan(1);
    for (const label of weeks) expect(rows.map((row) => `Week of ${row[0]}`)).toContain(label);
    // No axis label is a bare date.
    expect(drawn.filter((text) => /^[A-Z][a-z]{2} \d{1,2}$/.test(text))).toEqual([]);
    await expect(page.locator('[data-card="messages-over-time"] .card-note').textContent()).resolves.toMatch(new RegExp(`, per week, the weeks of ${rows[0][0]} to ${rows.at(-1)![0]}$`));

    // Pointing at the last column: its tooltip is titled with the week.
    const box = (await chart.boundingBox())!;
    const title = page.locator('.chart-tip .tip-title');
    for (let x = box.x + box.width - 4; x > box.x + box.width * 0.8; x -= 6) {
      await page.mouse.move(x, box.y + box.height * 0.6);
      if ((await title.count()) > 0 && (await title.textContent()) === `Week of ${rows.at(-1)![0]}`) break;
    }
    await expect(title.textContent()).resolves.toBe(`Week of ${rows.at(-1)![0]}`);

    // Active users per week say so too.
    await page.goto(`${live.url}/#view=users`);
    const users = page.locator('[data-chart="active-users"]');
    await users.locator('svg path').first().waitFor({ state: 'attached' });
    const labels = (await users.locator('svg text').allTextContents()).filter((text) => /^Week of [A-Z][a-z]{2} \d{1,2}$/.test(text));
    expect(labels.length).toBeGreaterThan(1);
  });

  for (const width of [1280, 800, 375]) {
    it(`lines up the filter's labels at ${width} px: From and To as high as Range, Bot, Platform and Channel on their line`, async () => {
      const page = await open(live.url, '#view=users', '.filter-bar label', width);
      const fields = await page.locator('.filter-bar .field').evaluateAll((all) => all.map((field) => ({
        label: field.querySelector('label')!.textContent!,
        labelTop: field.querySelector('label')!.getBoundingClientRect().top,
        controlTop: field.querySelector('select, input')!.getBoundingClientRect().top,
        controlBottom: field.querySelector('select, input')!.getBoundingClientRect().bottom,
      })));
      expect(fields.map((f) => f.label)).toEqual(['Range', 'From', 'To', 'Bot', 'Platform', 'Channel']);
      // Fields on one line (their boxes overlap in height) have their labels' tops and their controls' bottoms level.
      const lines = new Map<number, typeof fields>();
      for (const field of fields) {
        const line = [...lines.keys()].find((bottom) => Math.abs(bottom - field.controlBottom) < 12) ?? field.controlBottom;
        lines.set(line, [...(lines.get(line) ?? []), field]);
      }
      if (width === 1280) expect(lines.size).toBe(1);
      for (const line of lines.values()) {
        const names = line.map((f) => f.label).join(', ');
        for (const field of line) {
          expect(Math.abs(field.labelTop - line[0].labelTop), `${field.label} against ${names}`).toBeLessThan(0.5);
          expect(Math.abs(field.controlBottom - line[0].controlBottom), `${field.label} against ${names}`).toBeLessThan(0.5);
        }
      }
      expect([...lines.values()].some((line) => line.some((f) => f.label === 'From') && line.length > 1)).toBe(true);
    });
  }

  it('fits the Top customers table in a phone\'s width (375 px): no cell cut, nothing to scroll sideways', async () => {
    const page = await open(live.url, '#view=revenue', '[data-table="revenue-per-user"] tbody tr', 375);
    const table = page.locator('[data-table="revenue-per-user"]');
    const fit = await table.evaluate((box) => {
      const frame = box.getBoundingClientRect();
      const cells = [...box.querySelectorAll('th, td')].filter((cell) => !cell.closest('caption'));
      return {
        scrollWidth: box.scrollWidth,
        clientWidth: box.clientWidth,
        cells: cells.length,
        clipped: cells.filter((cell) => {
          const r = cell.getBoundingClientRect();
          return r.left < frame.left - 0.5 || r.right > frame.right + 0.5;
        }).map((cell) => cell.textContent),
      };
    });
    expect(fit.cells).toBeGreaterThan(20);
    expect(fit.clipped).toEqual([]);
    expect(fit.scrollWidth).toBeLessThanOrEqual(fit.clientWidth);
    // The last column's links are on screen.
    const last = (await page.locator('[data-table="revenue-per-user"] tbody tr').first().locator('td').last().boundingBox())!;
    expect(last.x + last.width).toBeLessThanOrEqual(375);
    await expect(page.locator('[data-table="revenue-per-user"] thead th').allTextContents()).resolves.toEqual(['User', 'Total', 'Purchases', 'Transcript']);
  });

  it('captions the flow diagram plainly', async () => {
    const page = await open(live.url, '#view=flow', '[data-card="flow"] .card-note');
    const note = await page.locator('[data-card="flow"] .card-note').textContent();
    expect(note).toMatch(/^The first steps of [\d,]+ sessions, left to right: the intents of what users said, and events\. Each step shows the most common ones; the rest are grouped as “Other” \(point at it to see them\)\. “Show table” lists every chain of steps\.$/);
    expect(note).not.toContain('three on a phone');
    // The button the caption names is there.
    await expect(page.locator('[data-card="flow"] button.toggle').textContent()).resolves.toBe('Show table');
  });
});
