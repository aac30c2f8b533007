/**
 * The analytics views in a real headless Chromium, over the generated dataset with known answers
 * (endpoint/test/helpers/dataset.ts): every figure below is worked out by hand from its list of visits.
 *
 * The pizza bot's visits: users a1 (Ann), a2, a3 (on msteams), a4 are new in the week of Monday
 * Sep 7, b1 (Bea) and b2 in the week of Sep 14, c1 in the week of Sep 21; a1 and a2 come back in
 * week 1, a1 and b1 in week 2, a2 in week 3. An order visit is Greet, a reply with the `order`
 * button, the click (OrderPizza), an AI-generated reply, a purchase (EUR 10, c1's USD 12) and
 * sometimes a rating; a browse visit is Greet, a reply, "Weather tomorrow?" (NotHandled), a reply.
 * The support bot has one browse visit (z1) in the week of Sep 14. Tests that add records send
 * them as a third bot, shop, so the pizza bot's figures stay as stated.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SHOP_KEY, startDatasetEndpoint, tableRows, usePages } from './harness.js';

let endpoint: Awaited<ReturnType<typeof startDatasetEndpoint>>;
const pages = usePages();

beforeAll(async () => {
  endpoint = await startDatasetEndpoint();
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
});

/** Opens the page at `hash` and waits for `ready` to be in it. */
async function open(hash: string, ready: string): Promise<Page> {
  const watched = await pages.open(endpoint.url);
  await watched.page.goto(`${endpoint.url}/${hash}`);
  await watched.page.locator(ready).first().waitFor({ state: 'attached' });
  return watched.page;
}

/** Sends a record as the shop bot (a revenue event, unless `type` says otherwise). */
async function sendAsShop(body: unknown, type = 'event'): Promise<void> {
  const query = new URLSearchParams({ platform: 'twitter', v: '11.1.0-rest', type, apiKey: SHOP_KEY });
  const res = await fetch(`${endpoint.url}/track?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

/** The rows of a table of steps: the steps (as `A > B > event:C`) and the other cells. */
function stepRows(page: Page, name: string): Promise<string[][]> {
  return page.locator(`[data-table="${name}"] tbody tr`).evaluateAll((rows) => rows.map((row) => [
    row.querySelector('[data-steps]')?.getAttribute('data-steps') ?? '',
    ...[...row.children].slice(1).map((cell) => (cell.textContent ?? '').trim()),
  ]));
}

const kpi = (page: Page, name: string) => page.locator(`[data-kpi="${name}"] .kpi-value`).textContent();

describe('the Users view', () => {
  it('counts active users per week, new and returning: 4, 4, 3, 1 for the pizza bot', async () => {
    const page = await open('#view=users&bot=pizza', '[data-table="active-users"] tbody tr');
    expect(await tableRows(page, 'active-users')).toEqual([
      ['Sep 7', '4', '4', '0'],
      ['Sep 14', '4', '2', '2'],
      ['Sep 21', '3', '1', '2'],
      ['Sep 28', '1', '0', '1'],
    ]);
    // The chart draws the same weeks, named as weeks (by their Monday), each column topped with its total.
    const drawn = await page.locator('[data-chart="active-users"] svg text').allTextContents();
    expect(drawn).toEqual(expect.arrayContaining(['Week of Sep 7', 'Week of Sep 14', 'Week of Sep 21', 'Week of Sep 28', 'New', 'Returning']));
    expect(drawn.filter((text) => /^\d$/.test(text)).slice(-4)).toEqual(['4', '4', '3', '1']);
  });

  it('counts the other bot\'s user with all bots, and only it with that bot', async () => {
    const page = await open('#view=users', '[data-table="active-users"] tbody tr');
    await expect.poll(() => tableRows(page, 'active-users')).toContainEqual(['Sep 14', '5', '3', '2']);
    await page.getByLabel('Bot').selectOption('support');
    await expect.poll(() => tableRows(page, 'active-users')).toEqual([['Sep 14', '1', '1', '0']]);
    expect(new URL(page.url()).hash).toContain('bot=support');
  });

  it('switches between days, weeks and months', async () => {
    const page = await open('#view=users&bot=pizza', '[data-table="active-users"] tbody tr');
    await page.getByRole('button', { name: 'Day', exact: true }).click();
    // Every day from the first visit (Mon Sep 7) to the last (Mon Sep 28); a1's two visits on Sep 7 are one user.
    await expect.poll(async () => (await tableRows(page, 'active-users')).length).toBe(22);
    const days = await tableRows(page, 'active-users');
    expect(days[0]).toEqual(['Sep 7', '1', '1', '0']);
    expect(days[4]).toEqual(['Sep 11', '0', '0', '0']);
    await page.getByRole('button', { name: 'Month', exact: true }).click();
    await expect.poll(() => tableRows(page, 'active-users')).toEqual([['Sep 2026', '7', '7', '0']]);
    await expect(page.getByRole('button', { name: 'Month', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
  });

  it('shows weekly retention as a heat map: of the week-0 cohort 50% came back in week 1, 25% in week 2, 25% in week 3', async () => {
    const page = await open('#view=users&bot=pizza', '[data-table="retention"] tbody tr');
    expect(await tableRows(page, 'retention')).toEqual([
      ['Sep 7', '4', '50%', '25%', '25%', '0%', '0%', '0%', '0%', '0%'],
      ['Sep 14', '2', '50%', '0%', '0%', '0%', '0%', '0%', '0%', '0%'],
      ['Sep 21', '1', '0%', '0%', '0%', '0%', '0%', '0%', '0%', '0%'],
    ]);
    // The darker the cell, the more came back.
    const heat = await page.locator('[data-cohort="2026-09-07"] td.cell').evaluateAll((cells) => cells.map((cell) => cell.className.match(/heat-\d+/)?.[0]));
    expect(heat.slice(0, 4)).toEqual(['heat-5', 'heat-3', 'heat-3', 'heat-0']);
  });

  it('shows sessions: 13, 4 messages each, 3 min 55 s on average, 4 min in the middle, and how many each day', async () => {
    const page = await open('#view=users&bot=pizza', '[data-table="sessions"] tbody tr');
    await expect(kpi(page, 'sessions')).resolves.toBe('13');
    await expect(page.locator('[data-kpi="sessions"] .kpi-hint').textContent()).resolves.toBe('7 users');
    await expect(kpi(page, 'messages-per-session')).resolves.toBe('4');
    // 4 order visits with a rating last 5 min, 4 without 4 min, 5 browse visits 3 min: 3060 s / 13.
    await expect(kpi(page, 'average-length')).resolves.toBe('3 min 55 s');
    await expect(kpi(page, 'median-length')).resolves.toBe('4 min');
    const days = await tableRows(page, 'sessions');
    expect(days).toHaveLength(22);
    expect(days[0]).toEqual(['Sep 7', '2']);
    expect(days.reduce((sum, [, n]) => sum + Number(n), 0)).toBe(13);
  });
});

describe('the Conversation flow view', () => {
  it('draws how sessions flow, with the chains of steps as text: Greet > OrderPizza > event:purchase in 8 sessions', async () => {
    const page = await open('#view=flow&bot=pizza', '[data-table="flow"] tbody tr');
    // Ratings are not steps of a path: the rated orders follow the same path as the others.
    // Each chain with its sessions, and of them those that ended there (every session begins with Greet; none stops there).
    expect(await stepRows(page, 'flow')).toEqual([
      ['Greet', '13', '0'],
      ['Greet > OrderPizza > event:purchase', '8', '8'],
      ['Greet > OrderPizza', '8', '0'],
      ['Greet > NotHandled', '5', '5'],
    ]);
    const drawn = await page.locator('[data-chart="flow"] svg text').allTextContents();
    expect(drawn).toEqual(expect.arrayContaining(['Greet', 'OrderPizza', 'NotHandled', 'purchase (event)', 'Ended']));
    expect(drawn).not.toContain('feedback (event)');
  });

  it('ranks the most common paths, each exactly as the sessions took it', async () => {
    const page = await open('#view=flow&bot=pizza', '[data-table="paths"] tbody tr');
    expect(await stepRows(page, 'paths')).toEqual([
      ['Greet > OrderPizza > event:purchase', '8', '62%'],
      ['Greet > NotHandled', '5', '38%'],
    ]);
  });

  it('proposes a funnel from the most common chain, shows the drop-off, and takes the steps the user picks', async () => {
    const page = await open('#view=flow&bot=pizza', '.funnel-step');
    const funnel = () => page.locator('.funnel-step').evaluateAll((steps) => steps.map((step) => [
      step.getAttribute('data-step'), step.querySelector('.funnel-users')?.textContent, step.querySelector('.funnel-conversion')?.textContent, step.querySelector('.drop-off')?.textContent ?? '',
    ]));
    // Greet: all 7 users; OrderPizza: a1, a2, a4, b1, c1; all 5 of them purchased.
    expect(await funnel()).toEqual([
      ['Greet', '7 users', '100%', ''],
      ['OrderPizza', '5 users', '71%', '↓ 29% dropped off (2 of 7)'],
      ['event:purchase', '5 users', '71%', '↓ 0% dropped off (0 of 5)'],
    ]);
    // The events a funnel can use are every event name seen, ratings included.
    await page.getByLabel('Add a step').selectOption('event:feedback');
    await page.getByRole('button', { name: 'Add step' }).click();
    // Rated: a1, a2, a4, b1.
    await expect.poll(funnel).toContainEqual(['event:feedback', '4 users', '57%', '↓ 20% dropped off (1 of 5)']);
    expect(new URL(page.url()).hash).toContain(`steps=${encodeURIComponent('Greet,OrderPizza,event:purchase,event:feedback')}`);
    await page.getByRole('button', { name: 'Remove step 1, Greet' }).click();
    await expect.poll(async () => (await funnel()).map((s) => s.slice(0, 2))).toEqual([
      ['OrderPizza', '5 users'], ['event:purchase', '5 users'], ['event:feedback', '4 users'],
    ]);
  });
});

describe('the Messages view', () => {
  it('lists what users say, what was not understood ("Weather tomorrow?" 5 times), and the buttons clicked ("order" 8 times)', async () => {
    const page = await open('#view=messages&bot=pizza', '[data-table="buttons"] tbody tr');
    expect(await tableRows(page, 'unhandled')).toEqual([['Weather tomorrow?', '5', '100%']]);
    expect(await tableRows(page, 'top-messages')).toEqual([
      ['Hi', '8', '31%', 'Greet'],
      ['Order', '8', '31%', 'OrderPizza'],
      ['Hi there', '5', '19%', 'Greet'],
      ['Weather tomorrow?', '5', '19%', 'NotHandled'],
    ]);
    expect(await tableRows(page, 'buttons')).toEqual([['order', 'Order', '8', '100%']]);
  });

  it('lists the intents with the recognizer\'s average confidence', async () => {
    const page = await open('#view=messages&bot=pizza', '[data-table="intents"] tbody tr');
    // Greet: 8 scores of 0.9 and 5 of 0.7 (82%); OrderPizza 0.8; NotHandled 0.3.
    expect(await tableRows(page, 'intents')).toEqual([
      ['Greet', '13', '0', '82%'],
      ['OrderPizza', '8', '0', '80%'],
      ['NotHandled', '5', '0', '30%'],
    ]);
    await expect(page.locator('.card-intents .card-note').textContent()).resolves.toBe('5 of 26 incoming messages not handled (19%).');
  });
});

describe('the Feedback & AI view', () => {
  it('counts 3 thumbs up and 1 down, per day and per intent, with the comments and who left them', async () => {
    const page = await open('#view=feedback&bot=pizza', '.comment');
    await expect(kpi(page, 'up')).resolves.toBe('3');
    await expect(kpi(page, 'down')).resolves.toBe('1');
    await expect(kpi(page, 'satisfaction')).resolves.toBe('75%');
    expect(await tableRows(page, 'feedback-per-intent')).toEqual([['OrderPizza', '3', '1', '75%']]);
    const days = await tableRows(page, 'feedback-per-day');
    expect(days.filter(([, up, down]) => up !== '0' || down !== '0')).toEqual([['Sep 7', '1', '0'], ['Sep 8', '1', '0'], ['Sep 10', '0', '1'], ['Sep 14', '1', '0']]);
    await expect(page.locator('.comment-text').allTextContents()).resolves.toEqual(['Cold pizza', 'Great, thanks', 'Fast!']);
    // The feedback events carry no name; the page knows a1 as Ann from her messages.
    await expect(page.locator('.comment', { hasText: 'Fast!' }).locator('.user-name').textContent()).resolves.toBe('Ann');
    await expect(page.locator('.comment.dislike .comment-text').textContent()).resolves.toBe('Cold pizza');
  });

  it('shows the share of replies marked AI-generated: 8 of 26', async () => {
    const page = await open('#view=feedback&bot=pizza', '[data-table="ai-share"] tbody tr');
    await expect(kpi(page, 'ai-share')).resolves.toBe('31%');
    await expect(page.locator('[data-kpi="ai-share"] .kpi-hint').textContent()).resolves.toBe('8 of 26 replies');
    expect(await tableRows(page, 'ai-share')).toEqual([['AI-generated', '8', '31%'], ['Other replies', '18', '69%']]);
    await expect(page.locator('[data-chart="ai-share"] svg text').allTextContents()).resolves.toContain('31%');
  });
});

describe('the Revenue view', () => {
  it('totals revenue per currency (EUR 70 and USD 12), per day and per user', async () => {
    const page = await open('#view=revenue&bot=pizza', '[data-table="revenue-per-user"] tbody tr');
    await expect(kpi(page, 'revenue-EUR')).resolves.toBe('EUR 70.00');
    await expect(page.locator('[data-kpi="revenue-EUR"] .kpi-label').textContent()).resolves.toBe('7 purchases');
    await expect(kpi(page, 'revenue-USD')).resolves.toBe('USD 12.00');
    await expect(page.locator('[data-kpi="revenue-USD"] .kpi-label').textContent()).resolves.toBe('1 purchase');
    expect(await tableRows(page, 'revenue-per-user')).toEqual([
      ['Ann a1', 'EUR 20.00', '2', 'Open'],
      ['a2', 'EUR 20.00', '2', 'Open'],
      ['Bea b1', 'EUR 20.00', '2', 'Open'],
      ['c1', 'USD 12.00', '1', 'Open'],
      ['a4', 'EUR 10.00', '1', 'Open'],
    ]);
    const days = await tableRows(page, 'revenue-per-day');
    expect(days).toHaveLength(8);
    expect(days).toContainEqual(['Sep 21', 'USD', '12.00', '1']);
  });

  it('shows revenue whose event names no currency as "unknown"', async () => {
    await sendAsShop({ type: 'revenueEvent', name: 'purchase', userId: 's1', amount: 5 });
    const page = await open('#view=revenue&bot=shop', '[data-kpi^="revenue-"]');
    await expect(kpi(page, 'revenue-unknown')).resolves.toBe('unknown 5.00');
    await expect.poll(() => tableRows(page, 'revenue-per-user')).toEqual([['s1', 'unknown 5.00', '1', 'Open']]);
  });

  it('updates live when revenue arrives', async () => {
    const page = await open('#view=revenue&bot=shop', '[data-kpi^="revenue-"]');
    await page.locator('.live[data-status="live"]').waitFor();
    await sendAsShop({ type: 'revenueEvent', name: 'purchase', userId: 's2', amount: 7.5, metadata: { currency: 'GBP' } });
    await expect.poll(() => kpi(page, 'revenue-GBP'), { timeout: 10_000 }).toBe('GBP 7.50');
  });
});

describe('the filter', () => {
  it('narrows every view to a date range, the last day included', async () => {
    const page = await open('#view=users&bot=pizza', '[data-table="active-users"] tbody tr');
    await page.getByLabel('From').fill('2026-09-14');
    await page.getByLabel('To').fill('2026-09-20');
    await expect.poll(() => tableRows(page, 'active-users')).toEqual([['Sep 14', '4', '2', '2']]);
    await expect(page.getByLabel('Range', { exact: true }).inputValue()).resolves.toBe('custom');
    // The read API's `to` is the first day left out; the export links carry the filter.
    const href = await page.getByRole('link', { name: 'Download active users as CSV' }).getAttribute('href');
    const query = new URL(href!).searchParams;
    expect(Object.fromEntries(query)).toEqual({ from: '2026-09-14', to: '2026-09-21', bot: 'pizza', interval: 'week', format: 'csv' });
    // Another view keeps the filter: b1's and a1's purchases that week.
    await page.locator('.views a[data-view="revenue"]').click();
    await expect.poll(() => kpi(page, 'revenue-EUR')).toBe('EUR 20.00');
    await expect(page.locator('[data-kpi="revenue-EUR"] .kpi-label').textContent()).resolves.toBe('2 purchases');
    await expect(page.locator('[data-kpi="revenue-USD"]').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => kpi(page, 'revenue-USD')).toBe('USD 12.00');
  });

  it('narrows by channel (a3 alone was on msteams), offering the channels and platforms seen, and the bots by name', async () => {
    const page = await open('#view=users&bot=pizza', '[data-table="active-users"] tbody tr');
    await expect(page.getByLabel('Channel').locator('option').allTextContents()).resolves.toEqual(['All channels', 'msteams', 'webchat']);
    await expect(page.getByLabel('Platform').locator('option').allTextContents()).resolves.toEqual(['All platforms', 'twitter']);
    await expect(page.getByLabel('Bot').locator('option').allTextContents()).resolves.toEqual(expect.arrayContaining(['All bots', 'pizza', 'support']));
    await page.getByLabel('Channel').selectOption('msteams');
    await expect.poll(() => tableRows(page, 'active-users')).toEqual([['Sep 7', '1', '1', '0']]);
    await expect(page.locator('[data-kpi="users"]').getAttribute('data-value')).resolves.toBe('1');
  });
});

describe('search and transcripts', () => {
  it('finds messages by text and opens the transcript at the one chosen', async () => {
    const page = await open('#view=conversations&bot=pizza', '.list .row');
    await page.getByLabel('Search transcripts').fill('weather');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('.list .result').count()).toBe(5);
    await expect(page.locator('.list-total').textContent()).resolves.toBe('5 messages found');
    // Newest first: Ann's on Sep 22, in a1-3.
    const first = page.locator('.list .result').first();
    await expect(first.locator('.row-id').textContent()).resolves.toBe('Ann');
    await first.click();
    await expect.poll(() => page.locator('.transcript-head h2').textContent()).toBe('Conversation a1-3');
    await expect(page.locator('.entry.found .text').textContent()).resolves.toBe('Weather tomorrow?');
    expect(new URL(page.url()).hash).toMatch(/conversation=a1-3&at=\d+/);
    // Scrolled to it: inside the transcript's pane.
    await expect.poll(async () => {
      const [found, pane] = await Promise.all([page.locator('.entry.found').boundingBox(), page.locator('.scroll').boundingBox()]);
      return found!.y >= pane!.y && found!.y + found!.height <= pane!.y + pane!.height;
    }).toBe(true);
  });

  it('finds a user\'s messages by name, and shows names where records carry them, ids otherwise', async () => {
    const page = await open('#view=conversations&bot=pizza&list=users', '.list .row');
    await expect(page.locator('.row[data-id="a1"] .row-id').textContent()).resolves.toBe('Ann (a1)');
    await expect(page.locator('.row[data-id="a2"] .row-id').textContent()).resolves.toBe('a2');
    await page.getByLabel('User', { exact: true }).fill('Ann');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.list .result').first().waitFor();
    const who = await page.locator('.list .result .row-id').allTextContents();
    expect(who.length).toBeGreaterThan(0);
    expect(new Set(who)).toEqual(new Set(['Ann', 'bot to Ann']));
    await page.locator('.list .result').first().click();
    await page.locator('.entry.incoming .who').first().waitFor();
    await expect(page.locator('.entry.incoming .who').first().textContent()).resolves.toBe('Ann');
  });
  it('shows the latest 500 entries of a long transcript, and the earlier ones on request', async () => {
    // 520 messages of one shop user, sent 20 at a time.
    for (let start = 0; start < 520; start += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => sendAsShop({ text: `message ${start + i + 1}`, userId: 'long-talker', platformJson: { conversation: { id: 'long-1' } } }, 'incoming')));
    }
    const page = await open('#view=conversations&bot=shop&conversation=long-1', '.entry');
    await expect(page.locator('.entry').count()).resolves.toBe(500);
    await expect(page.locator('.earlier .muted').textContent()).resolves.toBe(' 20 earlier entries not shown');
    await expect(page.locator('.transcript-meta').textContent()).resolves.toContain('(the latest of 520 entries)');
    await page.getByRole('button', { name: 'Show earlier entries' }).click();
    await expect.poll(() => page.locator('.entry').count()).toBe(520);
    await expect(page.locator('.earlier').count()).resolves.toBe(0);
    const texts = await page.locator('.entry .text').allTextContents();
    expect(new Set(texts).size).toBe(520);

    // A search result among the earliest entries: its transcript opens there, reading back to it
    // (in a page loaded afresh, which has read only the latest 500).
    await page.goto(`${endpoint.url}/#view=conversations&bot=shop&list=users`);
    await page.reload();
    await page.getByLabel('Search transcripts').fill('message 7');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const result = page.locator('.list .result', { has: page.locator('.result-text', { hasText: /^message 7$/ }) });
    await result.click();
    await expect.poll(() => page.locator('.entry.found .text').textContent()).toBe('message 7');
    await expect.poll(async () => {
      const [found, pane] = await Promise.all([page.locator('.entry.found').boundingBox(), page.locator('.scroll').boundingBox()]);
      return found!.y >= pane!.y && found!.y + found!.height <= pane!.y + pane!.height;
    }).toBe(true);
  }, 60_000);
});

describe('exports', () => {
  it('downloads a view as CSV with the filter', async () => {
    const page = await open('#view=users&bot=pizza', '[data-table="retention"] tbody tr');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download retention cohorts as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('retention.csv');
    const lines = (await readFile(await download.path(), 'utf8')).replace(/^\ufeff/, '').trim().split(/\r\n/);
    expect(lines[0]).toBe('week,users,week 1,week 2,week 3,week 4,week 5,week 6,week 7,week 8');
    expect(lines[1]).toBe('2026-09-07T00:00:00.000Z,4,0.5,0.25,0.25,0,0,0,0,0');
    expect(lines).toHaveLength(4);
    expect(pages.current!.requests.some((url) => url.includes('/api/analytics/retention?') && url.includes('bot=pizza') && url.includes('format=csv'))).toBe(true);
  });

  it('downloads a view as JSON, as the read API answers it', async () => {
    const page = await open('#view=revenue&bot=pizza', '[data-kpi="revenue-EUR"]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download revenue by currency as JSON' }).click()]);
    expect(download.suggestedFilename()).toBe('revenue.json');
    const body = JSON.parse(await readFile(await download.path(), 'utf8'));
    expect(body.byCurrency).toEqual([{ currency: 'EUR', total: 70, count: 7 }, { currency: 'USD', total: 12, count: 1 }]);
  });

  it('offers CSV and JSON on every card of every view, and on the lists and the transcript', async () => {
    const missing: string[] = [];
    for (const [view, ready] of [
      ['users', '[data-table="retention"] tbody tr'], ['flow', '.funnel-step'], ['messages', '[data-table="buttons"] tbody tr'],
      ['feedback', '.comment'], ['revenue', '[data-table="revenue-per-user"] tbody tr'],
    ]) {
      const page = pages.current ? pages.current.page : await open(`#view=${view}&bot=pizza`, ready);
      await page.goto(`${endpoint.url}/#view=${view}&bot=pizza`);
      await page.locator(ready).first().waitFor({ state: 'attached' });
      const cards = await page.locator('[data-card]').evaluateAll((all) => all.map((card) => ({
        name: card.getAttribute('data-card'),
        formats: [...card.querySelectorAll('.card-head .export')].map((a) => a.getAttribute('data-format')),
      })));
      expect(cards.length, view).toBeGreaterThan(2);
      for (const card of cards) if (!card.formats.includes('csv') || !card.formats.includes('json')) missing.push(`${view}: ${card.name}`);
    }
    expect(missing).toEqual([]);
    const page = pages.current!.page;
    await page.goto(`${endpoint.url}/#view=conversations&bot=pizza&conversation=c1-1`);
    await page.locator('.entry').first().waitFor();
    for (const where of ['.browse', '.transcript-panel']) {
      await expect(page.locator(`${where} .export`).evaluateAll((all) => all.map((a) => a.getAttribute('data-format')))).resolves.toEqual(['csv', 'json']);
    }
  });

  it('downloads each panel\'s own table: the comments, the ratings per intent, the top customers, the conversations', async () => {
    const page = await open('#view=feedback&bot=pizza', '.comment');
    const download = async (name: string) => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
      const lines = (await readFile(await file.path(), 'utf8')).replace(/^\ufeff/, '').trim().split(/\r\n/);
      return { file: file.suggestedFilename(), lines };
    };
    const comments = await download('Download comments as CSV');
    expect(comments.file).toBe('feedback-comments.csv');
    expect(comments.lines[0]).toBe('time,user,name,reaction,intent,comment,reply');
    expect(comments.lines).toHaveLength(4);
    expect(await download('Download ratings per intent as CSV')).toEqual({ file: 'feedback-per-intent.csv', lines: ['intent,up,down,liked', 'OrderPizza,3,1,0.75'] });
    expect((await download('Download feedback figures as CSV')).lines).toContain('thumbs down,1');
    await page.goto(`${endpoint.url}/#view=revenue&bot=pizza`);
    await page.locator('[data-table="revenue-per-user"] tbody tr').first().waitFor({ state: 'attached' });
    const customers = await download('Download top customers as CSV');
    expect(customers.file).toBe('revenue-per-user.csv');
    expect(customers.lines.slice(0, 2)).toEqual(['user,name,bot,currency,total,count', 'a1,Ann,pizza,EUR,20,2']);
    expect(await download('Download revenue by currency as CSV')).toEqual({ file: 'revenue-by-currency.csv', lines: ['currency,total,count', 'EUR,70,7', 'USD,12,1'] });
    await page.goto(`${endpoint.url}/#view=conversations&bot=pizza`);
    await page.locator('.list .row').first().waitFor();
    const conversations = await download('Download the conversations as CSV');
    expect(conversations.file).toBe('conversations.csv');
    expect(conversations.lines).toHaveLength(13);
  });

  it('downloads a transcript as CSV', async () => {
    const page = await open('#view=conversations&bot=pizza&conversation=c1-1', '.entry');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download this transcript as CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('transcript-c1-1.csv');
    const text = await readFile(await download.path(), 'utf8');
    expect(text).toContain('Your pizza is on its way.');
    expect(text).toContain('purchase');
  });
});

describe('charts', () => {
  it('shows a tooltip, built without HTML and within the Content-Security-Policy, when pointing at a column', async () => {
    const page = await open('#view=users&bot=pizza', '[data-chart="active-users"] svg');
    const box = (await page.locator('[data-chart="active-users"]').boundingBox())!;
    // The second of four columns (the week of Sep 14).
    await page.mouse.move(box.x + box.width * 0.38, box.y + box.height * 0.6);
    const tip = page.locator('.chart-tip .tip');
    await tip.waitFor();
    await expect(tip.locator('.tip-title').textContent()).resolves.toBe('Week of Sep 14');
    await expect(tip.locator('.tip-row').allTextContents()).resolves.toEqual(['New2', 'Returning2']);
  });
});

describe('the watch on every page of these tests', () => {
  it('would catch an inline style the policy refuses, and HTML parsed from a string', async () => {
    const page = await open('#view=users&bot=pizza', '[data-chart="active-users"] svg');
    await page.evaluate(() => {
      const probe = document.createElement('div');
      probe.setAttribute('style', 'color: red'); // markup style: refused by style-src 'self'
      probe.innerHTML = '<b>parsed</b>';
      document.body.append(probe);
    });
    // Chromium logs the refusal as a console error too.
    await expect.poll(() => pages.current!.problems.length).toBe(3);
    expect(pages.current!.problems.some((p) => p.startsWith('CSP violation: style-src-attr'))).toBe(true);
    expect(pages.current!.problems.some((p) => p.startsWith('console error: Applying inline style violates'))).toBe(true);
    expect(pages.current!.problems.some((p) => p.startsWith('HTML parsed from a string into <div>: <b>parsed</b>'))).toBe(true);
    pages.current!.problems.length = 0; // seen: not a problem of the page
  });
});
