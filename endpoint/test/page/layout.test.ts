/**
 * Every view at a phone's width (375 px), a small tablet's (800 px) and a desktop's (1280 px),
 * over the realistic live dataset (live-dataset.ts: twelve weeks up to now, so the current week is
 * not over and retention cohorts have weeks not ended yet, as on every live bot): nothing makes the
 * page scroll sideways, every card and chart fits and is visible, every chart has its table beside
 * it for screen readers; and a screenshot of each, in endpoint/test/artifacts/ (git-ignored). With
 * UPDATE_DOCS_IMAGES=1 the desktop screenshots are also written to docs/images/, as the README and
 * endpoint/README.md show them.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startEndpoint, startLiveDatasetEndpoint, tableRows, widths, usePages } from './harness.js';
import { SHOWCASE_CONVERSATION } from './live-dataset.js';

const DOCS_IMAGES = fileURLToPath(new URL('../../../docs/images/', import.meta.url));
const WIDTHS = [375, 800, 1280];

/** Each view: where it opens, what shows it is drawn, and the cards it must show. */
const VIEWS = [
  { view: 'users', ready: '[data-table="retention"] tbody tr', cards: ['active-users', 'sessions', 'retention'] },
  { view: 'flow', ready: '.funnel-step', cards: ['flow', 'paths', 'funnel'] },
  { view: 'messages', ready: '[data-table="buttons"] tbody tr', cards: ['messages-over-time', 'intents', 'top-messages', 'unhandled', 'buttons'] },
  { view: 'feedback', ready: '.comment', cards: ['feedback-figures', 'ai-share', 'feedback-per-day', 'feedback-per-intent', 'comments'] },
  { view: 'revenue', ready: '[data-table="revenue-per-user"] tbody tr', cards: ['revenue-totals', 'revenue-per-day', 'revenue-per-user'] },
  { view: 'conversations', extra: `&conversation=${SHOWCASE_CONVERSATION}`, ready: '.entry.event', cards: [] },
] as const;

let endpoint: Awaited<ReturnType<typeof startLiveDatasetEndpoint>>;
const pages = usePages();

beforeAll(async () => {
  endpoint = await startLiveDatasetEndpoint();
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
});

for (const width of WIDTHS) {
  describe(`at ${width} px`, () => {
    for (const { view, ready, cards, ...rest } of VIEWS) {
      it(`shows the ${view} view whole, without sideways scrolling`, async () => {
        const { page } = await pages.open(endpoint.url, { width, height: 900 });
        await page.goto(`${endpoint.url}/#view=${view}${'extra' in rest ? rest.extra : ''}`);
        await page.locator(ready).first().waitFor();
        // Every chart drawn, at the width of its card.
        const charts = page.locator('[data-chart]');
        await expect.poll(() => charts.evaluateAll((all) => all.every((chart) => {
          const svg = chart.querySelector('svg');
          return svg !== null && svg.querySelector('path') !== null && Math.abs(svg.getBoundingClientRect().width - chart.clientWidth) < 2;
        }))).toBe(true);

        const { scrollWidth, innerWidth } = await widths(page);
        expect(scrollWidth).toBeLessThanOrEqual(innerWidth);

        // The header, every view's link, the filter and the view's cards are on the page, inside its width.
        const inside = async (selector: string) => {
          const box = await page.locator(selector).boundingBox();
          expect(box, selector).not.toBeNull();
          expect(box!.x, selector).toBeGreaterThanOrEqual(0);
          expect(box!.x + box!.width, selector).toBeLessThanOrEqual(innerWidth + 0.5);
          expect(box!.height, selector).toBeGreaterThan(0);
        };
        await inside('.topbar h1');
        for (const link of await page.locator('.views a').all()) {
          await expect(link.isVisible()).resolves.toBe(true);
          const box = (await link.boundingBox())!;
          expect(box.x + box.width).toBeLessThanOrEqual(innerWidth);
        }
        for (const field of ['Range', 'From', 'To', 'Bot', 'Platform', 'Channel']) await expect(page.getByLabel(field, { exact: true }).isVisible()).resolves.toBe(true);
        for (const card of cards) await inside(`[data-card="${card}"]`);
        if (view === 'conversations') {
          // On a phone the chosen transcript is a screen of its own, with the way back to the list.
          if (width < 760) {
            await expect(page.locator('.browse').count()).resolves.toBe(0);
            await inside('.transcript-head .back');
          } else {
            await inside('.browse');
          }
          await inside('.transcript-panel');
          await expect(page.locator('.transcript-head h2').textContent()).resolves.toBe(`Conversation ${SHOWCASE_CONVERSATION}`);
          for (const bubble of await page.locator('.bubble, .event-pill').all()) {
            const box = (await bubble.boundingBox())!;
            expect(box.x + box.width).toBeLessThanOrEqual(innerWidth);
          }
        }

        // Every chart is hidden from screen readers, with a table of its figures in its card.
        for (const chart of await charts.all()) {
          await expect(chart.getAttribute('aria-hidden')).resolves.toBe('true');
          const name = await chart.getAttribute('data-chart');
          await expect(page.locator(`[data-card="${name}"] table caption`).count()).resolves.toBe(1);
        }

        await screenshot(page, `page-${view}-${width}`);
        if (width === 1280 && process.env.UPDATE_DOCS_IMAGES === '1') await screenshot(page, `page-${view}`, DOCS_IMAGES);
      });
    }
  });
}

describe('a live bot\'s twelve weeks', () => {
  it('lists the latest 10 comments on a phone, and 10 more at a time on request', async () => {
    const { page } = await pages.open(endpoint.url, { width: 375 });
    await page.goto(`${endpoint.url}/#view=feedback`);
    await page.locator('.comment').first().waitFor();
    const all = Number((await page.locator('.more-comments .muted').textContent())!.match(/of (\d+) comments/)![1]);
    expect(all).toBeGreaterThan(20);
    await expect(page.locator('.comment').count()).resolves.toBe(10);
    // The whole view stays a phone page: no longer than a few screens.
    expect(await page.evaluate(() => document.scrollingElement!.scrollHeight)).toBeLessThan(6000);
    await page.getByRole('button', { name: 'Show 10 more' }).click();
    await expect.poll(() => page.locator('.comment').count()).toBe(20);
    await expect(page.locator('.more-comments .muted').textContent()).resolves.toBe(`Showing 20 of ${all} comments.`);
    await page.getByRole('button', { name: 'Show fewer' }).click();
    await expect.poll(() => page.locator('.comment').count()).toBe(10);
  });

  it('shows Transcripts on a phone as a list filling the screen, then the transcript as its own screen, and back', async () => {
    const { page } = await pages.open(endpoint.url, { width: 375, height: 740 });
    await page.goto(`${endpoint.url}/#view=conversations`);
    await page.locator('.list .row').first().waitFor();
    // The list alone, as long as the list: more rows than a screen holds, no box of four.
    await expect(page.locator('.transcript-panel').count()).resolves.toBe(0);
    const rows = await page.locator('.list .row').count();
    expect(rows).toBeGreaterThan(20);
    const list = (await page.locator('.list').boundingBox())!;
    expect(list.height).toBeGreaterThan(rows * 50);
    const { scrollWidth, innerWidth } = await widths(page);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);

    const id = await page.locator('.list .row').nth(2).getAttribute('data-id');
    await page.locator('.list .row').nth(2).click();
    await expect.poll(() => page.locator('.transcript-head h2').textContent()).toBe(`Conversation ${id}`);
    await expect(page.locator('.browse').count()).resolves.toBe(0);
    // The transcript takes the screen: its heading at the top, its entries below, most of the height.
    await page.locator('.entry').first().waitFor();
    const head = (await page.locator('.transcript-head h2').boundingBox())!;
    expect(head.y).toBeGreaterThanOrEqual(0);
    expect(head.y).toBeLessThan(200);
    expect((await page.locator('.transcript-panel .scroll').boundingBox())!.height).toBeGreaterThan(740 * 0.5);
    await expect(page.evaluate(() => document.activeElement?.tagName)).resolves.toBe('H2');

    await page.getByRole('button', { name: 'Conversations' }).click();
    await page.locator('.list .row').first().waitFor();
    await expect(page.locator('.transcript-panel').count()).resolves.toBe(0);
    // The browser's back button does the same.
    await page.locator(`.list .row[data-id="${id}"]`).click();
    await page.locator('.transcript-head .back').waitFor();
    await page.goBack();
    await page.locator('.list .row').first().waitFor();
    await expect(page.locator('.transcript-panel').count()).resolves.toBe(0);
  });

  for (const width of [375, 1280]) {
    it(`draws the flow of thirteen intents readably at ${width} px: a few nodes per step, the rest as Other, no label over another`, async () => {
      const { page } = await pages.open(endpoint.url, { width });
      await page.goto(`${endpoint.url}/#view=flow`);
      const chart = page.locator('[data-chart="flow"]');
      await expect.poll(() => chart.locator('svg text').count()).toBeGreaterThan(4);
      const labels = await chart.evaluate((box) => {
        const outer = box.getBoundingClientRect();
        return [...box.querySelectorAll('svg text')].map((text) => {
          const r = text.getBoundingClientRect();
          return { text: text.textContent ?? '', left: r.left - outer.left, top: r.top - outer.top, right: r.right - outer.left, bottom: r.bottom - outer.top, width: outer.width, height: outer.height };
        });
      });
      // Each step's most common steps (five, three on a phone), and the rest merged; after each step but the last, an "Ended" sink.
      expect(labels.length).toBeLessThanOrEqual(width < 480 ? 3 * 4 + 2 : 4 * 6 + 3);
      expect(labels.some((l) => /^Other \(\d+\)$/.test(l.text))).toBe(true);
      for (const l of labels) {
        expect(l.left, l.text).toBeGreaterThanOrEqual(-0.5);
        expect(l.right, l.text).toBeLessThanOrEqual(l.width + 0.5);
      }
      const overlaps = labels.flatMap((a, i) => labels.slice(i + 1).filter((b) =>
        Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1).map((b) => `${a.text} / ${b.text}`));
      expect(overlaps).toEqual([]);
      // Pointing at an Other node names the steps it merges.
      const other = chart.locator('svg text', { hasText: /^Other/ }).first();
      const box = (await other.boundingBox())!;
      await page.mouse.move(box.x - 6, box.y + box.height / 2);
      await expect.poll(() => page.locator('.chart-tip .tip-title').textContent().catch(() => '')).toMatch(/^Step \d: Other \(\d+\)$/);
      expect(await page.locator('.chart-tip .tip-row').count()).toBeGreaterThan(2);
    });
  }

  it('shows messages over all time, per week, every message of the range in it', async () => {
    const { page } = await pages.open(endpoint.url, { width: 1280 });
    await page.goto(`${endpoint.url}/#view=messages`);
    await page.locator('[data-table="messages-over-time"] tbody tr').first().waitFor({ state: 'attached' });
    const rows = await tableRows(page, 'messages-over-time');
    // Twelve weeks do not fit in 60 days: 12 weeks (13 when this Monday's week has begun).
    expect(rows.length).toBeGreaterThanOrEqual(12);
    expect(rows.length).toBeLessThanOrEqual(13);
    await expect(page.locator('[data-table="messages-over-time"] thead th').first().textContent()).resolves.toBe('Week of');
    const shown = rows.reduce((sum, [, incoming, outgoing]) => sum + Number(incoming.replace(/,/g, '')) + Number(outgoing.replace(/,/g, '')), 0);
    await expect.poll(() => page.locator('[data-kpi="messages"]').getAttribute('data-value')).toBe(String(shown));
    await expect(page.locator('[data-card="messages-over-time"] .card-note').textContent()).resolves.toMatch(new RegExp(`, per week, the weeks of ${rows[0][0]} to ${rows.at(-1)![0]}$`));
  });


  it('marks this week\'s figures as counted so far, as its note says, and leaves weeks not begun empty', async () => {
    const { page } = await pages.open(endpoint.url, { width: 1280 });
    await page.goto(`${endpoint.url}/#view=users`);
    await page.locator('[data-table="retention"] tbody tr').first().waitFor();
    const monday = (ms: number) => Math.floor((ms - 4 * 86_400_000) / (7 * 86_400_000)) * 7 * 86_400_000 + 4 * 86_400_000;
    const thisWeek = monday(Date.now());
    const cells = await page.locator('[data-table="retention"] tbody tr').evaluateAll((rows) => rows.flatMap((row) =>
      [...row.querySelectorAll('td[data-week]')].map((cell) => ({
        cohort: row.getAttribute('data-cohort')!, week: Number(cell.getAttribute('data-week')), text: (cell.textContent ?? '').trim(), soFar: cell.classList.contains('so-far'),
      }))));
    const weekOf = (cell: { cohort: string; week: number }) => Date.parse(`${cell.cohort}T00:00:00Z`) + cell.week * 7 * 86_400_000;
    const current = cells.filter((cell) => weekOf(cell) === thisWeek);
    expect(current.length).toBeGreaterThan(0);
    for (const cell of current) {
      expect(cell.soFar, `${cell.cohort} week ${cell.week}`).toBe(true);
      expect(cell.text).toMatch(/^\d+(\.\d)?%… so far$/);
    }
    expect(cells.filter((cell) => weekOf(cell) < thisWeek).every((cell) => !cell.soFar && /^\d+(\.\d)?%$/.test(cell.text))).toBe(true);
    expect(cells.filter((cell) => weekOf(cell) > thisWeek).every((cell) => cell.text === 'not yet')).toBe(true);
    await expect(page.locator('[data-card="retention"] .card-note').textContent()).resolves.toContain('is this week, not over yet: the users back so far');
  });
});

describe('on an endpoint with no records yet', () => {
  it('shows every view empty, saying so, with nothing broken', async () => {
    const empty = await startEndpoint();
    try {
      const { page } = await pages.open(empty.url, { width: 375 });
      const expected: Record<string, string> = {
        users: 'No users in this range.',
        flow: 'No sessions in this range.',
        messages: 'No messages in this range.',
        feedback: 'No ratings in this range.',
        revenue: 'No revenue events in this range.',
        conversations: 'No records yet. Point a bot at this endpoint.',
      };
      for (const [view, text] of Object.entries(expected)) {
        await page.goto(`${empty.url}/#view=${view}`);
        await page.getByText(text).first().waitFor();
        await expect(page.locator('[data-chart]').count()).resolves.toBe(0);
        await expect(page.locator('.banner').count()).resolves.toBe(0);
        const { scrollWidth, innerWidth } = await widths(page);
        expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      }
      await expect(page.locator('[data-kpi="records"]').getAttribute('data-value')).resolves.toBe('0');
    } finally {
      await empty.close();
    }
  });
});
