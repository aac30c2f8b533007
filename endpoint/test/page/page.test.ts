/**
 * The page at `/`, in a real headless Chromium, over the demo's records: the Transcripts view (the
 * conversation list and its filters, a transcript as chat bubbles), the Messages view's figures,
 * live updates, and that text from records is only ever text.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { TrackingClient } from 'botbuilder-conversation-analytics';
import type { TimeseriesResponse, TrackingSummary } from '../../src/index.js';
import { KEY, playDemo, screenshot, startEndpoint, tableRows, usePages } from './harness.js';

// The demo's bot imports the package by name; here that name means the source.
vi.mock('botbuilder-conversation-analytics', () => import('botbuilder-conversation-analytics'));

let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
const pages = usePages();

beforeAll(async () => {
  endpoint = await startEndpoint();
  const { delivered } = await playDemo(endpoint.url);
  expect(delivered).toBe(27);
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
});

/** Opens the page at `hash` (the Transcripts view unless it says otherwise) and waits until `ready` (its list) is drawn. */
async function open(hash = '#view=conversations', allow: string[] = [], ready = '.list .row'): Promise<Page> {
  const watched = await pages.open(endpoint.url, { allow });
  await watched.page.goto(`${endpoint.url}/${hash}`);
  await watched.page.locator(ready).first().waitFor();
  return watched.page;
}

const rowIds = (page: Page) => page.locator('.list .row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id')));

async function getJson<T>(path: string): Promise<T> {
  return (await fetch(`${endpoint.url}${path}`)).json() as Promise<T>;
}

describe('the conversation list', () => {
  it('lists the demo\'s conversations with platform, channel, message count and last activity', async () => {
    const page = await open();
    expect((await rowIds(page))?.sort()).toEqual(['2718281828', 'a:1mei-personal', 'conv-user-ada', 'conv-user-grace']);
    const ada = page.locator('.row[data-id="conv-user-ada"]');
    await expect(ada.locator('.chip.platform').textContent()).resolves.toBe('universal');
    await expect(ada.locator('.chip.channel').textContent()).resolves.toBe('webchat');
    await expect(ada.locator('.row-meta').textContent()).resolves.toContain('8 messages');
    const { conversations } = await getJson<{ conversations: { conversationId: string; lastActivity: string }[] }>('/api/conversations');
    const last = conversations.find((c) => c.conversationId === 'conv-user-ada')?.lastActivity;
    await expect(ada.locator('time').getAttribute('datetime')).resolves.toBe(last);
    const linus = page.locator('.row[data-id="2718281828"]');
    await expect(linus.locator('.chip.platform').textContent()).resolves.toBe('facebook');
    await expect(linus.locator('.chip.channel').count()).resolves.toBe(0);
  });

  it('lists users on the Users tab', async () => {
    const page = await open();
    await page.getByRole('tab', { name: 'Users' }).click();
    await page.locator('.row[data-id="user-ada"]').waitFor();
    expect((await rowIds(page))?.sort()).toEqual(['2718281828', '29:1f4c-mei', 'user-ada', 'user-grace']);
    await expect(page.locator('.row[data-id="user-grace"] .row-meta').textContent()).resolves.toContain('4 messages');
  });

  it('filters by platform (the filter bar) and by intent (the list\'s own)', async () => {
    const page = await open();
    await page.getByLabel('Platform', { exact: true }).selectOption('facebook');
    await page.locator('.row[data-id="conv-user-ada"]').waitFor({ state: 'detached' });
    expect((await rowIds(page))?.sort()).toEqual(['2718281828']);
    expect(new URL(page.url()).hash).toContain('platform=facebook');

    await page.getByLabel('Platform', { exact: true }).selectOption('');
    await page.getByLabel('Intent', { exact: true }).selectOption('NotHandled');
    await page.locator('.row[data-id="2718281828"]').waitFor({ state: 'detached' });
    // Ada's conversation and Mei's (on Teams) each have a message not understood.
    expect((await rowIds(page))?.sort()).toEqual(['a:1mei-personal', 'conv-user-ada']);
    await expect(page.locator('.list-total').textContent()).resolves.toBe('2 conversations match the filters');
    await page.getByLabel('Channel', { exact: true }).selectOption('webchat');
    await page.locator('.row[data-id="a:1mei-personal"]').waitFor({ state: 'detached' });
    expect(await rowIds(page)).toEqual(['conv-user-ada']);
    await expect(page.locator('.list-total').textContent()).resolves.toBe('1 conversation matches the filters');
  });
});

describe('a transcript', () => {
  it('shows chat bubbles: the user\'s on one side, the bot\'s on the other, with intent tags and inputs', async () => {
    const page = await open('#conversation=conv-user-ada');
    await page.locator('.entry').first().waitFor();
    await expect(page.locator('.transcript-head h2').textContent()).resolves.toBe('Conversation conv-user-ada');
    await expect(page.locator('.views a[aria-current="page"]').textContent()).resolves.toBe('Transcripts');
    const texts = await page.locator('.entry:not(.event) .text').allTextContents();
    expect(texts.slice(0, 3)).toEqual(['hi there', 'Hello! Want to see the menu?', 'show me the menu']);

    const incoming = await page.locator('.entry.incoming .bubble').first().boundingBox();
    const outgoing = await page.locator('.entry.outgoing .bubble').first().boundingBox();
    const pane = await page.locator('.scroll').boundingBox();
    expect(incoming!.x - pane!.x).toBeLessThan(40); // left edge
    expect(pane!.x + pane!.width - (outgoing!.x + outgoing!.width)).toBeLessThan(40); // right edge

    const order = page.locator('.entry.incoming', { hasText: 'order margherita' });
    await expect(order.locator('.intent-name').textContent()).resolves.toBe('OrderPizza');
    const pizza = order.locator('.intent-input', { hasText: 'pizza' });
    await expect(pizza.locator('.input-name').textContent()).resolves.toBe('pizza');
    await expect(pizza.locator('.input-value').textContent()).resolves.toBe('margherita');
    const sing = page.locator('.entry.incoming', { hasText: 'can you sing?' });
    await expect(sing.locator('.intent-name.warn').textContent()).resolves.toBe('NotHandled');
  });

  it('marks the replies the bot flagged AI-generated, and only those', async () => {
    const page = await open('#conversation=conv-user-ada');
    await page.locator('.entry').first().waitFor();
    const marked = page.locator('.entry.outgoing:has(.ai-generated)');
    await expect(marked.locator('.text').allTextContents()).resolves.toEqual(["I'm only a pizza shop assistant, so I can't help with that. Say help for ideas."]);
    await expect(marked.locator('.ai-generated').textContent()).resolves.toBe('AI generated');
    await expect(page.locator('.entry.outgoing').count()).resolves.toBeGreaterThan(1);
    const transcript = await getJson<{ entries: { text?: string; aiGenerated?: boolean }[] }>('/api/transcript?conversation=conv-user-ada');
    expect(transcript.entries.filter((e) => e.aiGenerated).map((e) => e.text)).toEqual(["I'm only a pizza shop assistant, so I can't help with that. Say help for ideas."]);
  });

  it('shows the buttons offered and marks the one the user clicked', async () => {
    const page = await open('#conversation=conv-user-ada');
    const card = page.locator('.entry.outgoing', { has: page.locator('[data-button-id="order margherita"]') });
    await card.waitFor();
    await expect(card.locator('.button').allTextContents()).resolves.toEqual(['margherita (9.50 EUR)', 'pepperoni (11.00 EUR)']);
    await expect(card.locator('.button.clicked').allTextContents()).resolves.toEqual(['margherita (9.50 EUR)']);
    const click = page.locator('.entry.incoming', { hasText: 'order margherita' });
    await expect(click.locator('.clicked-label').textContent()).resolves.toBe('margherita (9.50 EUR)');
  });

  it('shows images as tiles, loading nothing from the record\'s host until asked', async () => {
    const page = await open('#conversation=conv-user-ada');
    const thumb = page.locator('.entry.outgoing .thumb').first();
    await expect(thumb.getAttribute('title')).resolves.toBe('https://example.com/images/margherita.png');
    await expect(thumb.locator('.thumb-name').textContent()).resolves.toBe('margherita.png');
    await expect(page.getByRole('button', { name: 'Load images' }).isVisible()).resolves.toBe(true);
    expect(pages.current!.requests.some((url) => url.includes('example.com'))).toBe(false);
  });

  it('loads the images when asked to, over https only', async () => {
    const page = await open('#conversation=conv-user-ada', ['https://example.com/']);
    // Stand in for the image host: nothing leaves this machine.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    await page.route('https://example.com/**', (route) => route.fulfill({ status: 200, contentType: 'image/png', body: png }));
    await page.getByRole('button', { name: 'Load images' }).click();
    await page.waitForURL(/[?&]images=remote/);
    const image = page.locator('.entry.outgoing img.thumb');
    await expect(image.getAttribute('src')).resolves.toBe('https://example.com/images/margherita.png');
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    expect(new URL(page.url()).hash).toContain('conversation=conv-user-ada');
    await expect(page.getByRole('button', { name: 'Hide images' }).isVisible()).resolves.toBe(true);
  });

  it('shows events inline: a revenue event with its amount', async () => {
    const page = await open('#conversation=conv-user-ada');
    const revenue = page.locator('.entry.event .event-pill.revenue');
    await expect(revenue.locator('.event-type').textContent()).resolves.toBe('Revenue');
    await expect(revenue.locator('.event-name').textContent()).resolves.toBe('pizza-order');
    await expect(revenue.locator('.event-amount').textContent()).resolves.toBe('9.50');
    await expect(revenue.locator('.event-ref').textContent()).resolves.toBe('order-1');
  });

  it('shows a record\'s platformJson behind a toggle', async () => {
    const page = await open('#user=user-grace');
    const first = page.locator('.entry.incoming').first();
    await first.waitFor();
    await expect(first.locator('pre.json').isHidden()).resolves.toBe(true);
    await first.locator('.json-toggle').click();
    await expect(first.locator('.json-toggle').getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(first.locator('pre.json[data-shows="platformJson"]').textContent()).resolves.toContain('"channelId": "webchat"');
    await first.locator('.json-toggle').click();
    await expect(first.locator('pre.json').isHidden()).resolves.toBe(true);
  });
});

describe('the Messages view', () => {
  it('counts messages in and out per time bucket, one table row (and chart column) per bucket', async () => {
    const page = await open('#view=messages', [], '[data-chart="messages-over-time"] svg');
    const series = await getJson<TimeseriesResponse>('/api/timeseries?bucket=auto&limit=60');
    // Independently: every record arrived within the minutes from the first to the last.
    const times = (await endpoint.store.records({ limit: 1_000_000 })).map((r) => Math.floor(Date.parse(r.receivedAt) / 60_000));
    expect(series.bucket).toBe('minute');
    expect(series.points).toHaveLength(Math.max(...times) - Math.min(...times) + 1);
    await expect.poll(async () => (await tableRows(page, 'messages-over-time')).length).toBe(series.points.length);
    // The note says what is shown: the width and the buckets, first to last.
    const rows = await tableRows(page, 'messages-over-time');
    const span = rows.length === 1 ? rows[0][0] : `${rows[0][0]} to ${rows.at(-1)![0]}`;
    await expect(page.locator('.card-messages-over-time .card-note').textContent()).resolves.toBe(`11 incoming, 11 outgoing, per minute, ${span}`);
    expect(rows.reduce((sum, row) => sum + Number(row[1]), 0)).toBe(11);
    expect(rows.reduce((sum, row) => sum + Number(row[2]), 0)).toBe(11);
  });

  it('lists each button clicked by the label the bot offered it with, not by what the click\'s message said', async () => {
    const page = await open('#view=messages', [], '[data-table="buttons"] tbody tr');
    // Ada clicked the card's "margherita (9.50 EUR)"; Web Chat sent "order margherita" with the click.
    const rows = await tableRows(page, 'buttons');
    expect(rows.map((row) => row.slice(0, 3))).toEqual([['order margherita', 'margherita (9.50 EUR)', '1']]);
  });

  it('lists the intents and the share of incoming messages not handled', async () => {
    const page = await open('#view=messages', [], '[data-chart="intents"] svg');
    const summary = await getJson<TrackingSummary>('/api/summary');
    await expect.poll(async () => (await tableRows(page, 'intents')).map((row) => row[0]).sort()).toEqual(Object.keys(summary.byIntent).sort());
    await expect(page.locator('[data-table="intents"] .intent-name.warn').textContent()).resolves.toBe('NotHandled');
    await expect(page.locator('.card-intents .card-note').textContent()).resolves.toBe('2 of 11 incoming messages not handled (18%).');
  });
});

describe('every view', () => {
  it('has the demo\'s data on every card: no view says it has nothing, Feedback & AI included (Mei\'s ratings on Teams)', async () => {
    // Feedback & AI last: its figures are read below.
    const views = { users: 'retention', flow: 'funnel', messages: 'buttons', revenue: 'revenue-per-user', feedback: 'comments' };
    for (const [view, card] of Object.entries(views)) {
      const page = pages.current?.page ?? await open(`#view=${view}`, [], `[data-card="${card}"]`);
      await page.goto(`${endpoint.url}/#view=${view}`);
      await page.locator(`[data-card="${card}"]`).waitFor();
      await expect.poll(() => page.locator('main .loading').count()).toBe(0);
      const cards = await page.locator('main [data-card]').evaluateAll((all) => all.map((c) => ({ card: c.getAttribute('data-card'), empty: c.querySelector('.empty')?.textContent ?? null })));
      expect(cards.length, view).toBeGreaterThan(1);
      expect(cards.filter((c) => c.empty !== null), view).toEqual([]);
    }
    const page = pages.current!.page;
    expect(new URL(page.url()).hash).toBe('#view=feedback');
    // Feedback & AI: one thumb up and one down, 50% liked, both comments, per day and per intent.
    await expect(page.locator('[data-kpi="up"] .kpi-value').textContent()).resolves.toBe('1');
    await expect(page.locator('[data-kpi="down"] .kpi-value').textContent()).resolves.toBe('1');
    await expect(page.locator('[data-kpi="satisfaction"] .kpi-value').textContent()).resolves.toBe('50%');
    expect((await tableRows(page, 'feedback-per-intent')).sort()).toEqual([['Help', '1', '0', '100%'], ['NotHandled', '0', '1', '0%']]);
    await expect(page.locator('.comment .comment-text').allTextContents()).resolves.toEqual(['It did not answer my question', 'Clear, thanks']);
  });
});

describe('live updates and untrusted text', () => {
  it('adds a record to the open transcript, the list and the figures as soon as it arrives', async () => {
    const page = await open('#conversation=conv-user-ada');
    await page.locator('.live[data-status="live"]').waitFor();
    await page.locator('[data-kpi="records"][data-value="27"]').waitFor();
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const client = new TrackingClient({ apiKey: KEY, baseUrl: endpoint.url, logger: false });
    await client.universal.logIncoming({ text: 'is my pizza ready?', userId: 'user-ada', platformJson: { channelId: 'webchat', conversation: { id: 'conv-user-ada' } } });
    await client.close();

    await page.locator('.entry.incoming .text', { hasText: 'is my pizza ready?' }).waitFor();
    await page.locator('[data-kpi="records"][data-value="28"]').waitFor();
    await expect(page.locator('.row[data-id="conv-user-ada"] .row-meta').textContent()).resolves.toContain('9 messages');
    await page.locator('.entry.incoming', { hasText: 'is my pizza ready?' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'viewer');
    // The Messages view, reached by its link (no reload), counts it too.
    await page.locator('.views a[data-view="messages"]').click();
    await expect.poll(() => page.locator('.card-messages-over-time .card-note').textContent()).toContain('12 incoming');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  it('shows HTML in a record as text: nothing runs and no element is made from it', async () => {
    const attack = '<img src=x onerror=alert(1)>';
    const client = new TrackingClient({ apiKey: KEY, baseUrl: endpoint.url, logger: false });
    await client.universal.logIncoming({
      text: attack,
      userId: '<b>eve</b>',
      intent: { name: '<script>alert(2)</script>', inputs: [{ name: '<i>n</i>', value: '<svg onload=alert(3)>' }] },
      platformJson: { channelId: '<u>web</u>', conversation: { id: '<em>conv</em>' } },
    });
    await client.universal.logOutgoing({
      text: 'pick one', userId: '<b>eve</b>', buttons: [{ id: 'b1', label: '<button onclick=alert(4)>go</button>', value: 'b1' }],
      images: [{ url: 'javascript:alert(5)' }], platformJson: { conversation: { id: '<em>conv</em>' } },
    });
    await client.close();

    const page = await open(`#user=${encodeURIComponent('<b>eve</b>')}`);
    const entry = page.locator('.entry.incoming').first();
    await entry.waitFor();
    await expect(entry.locator('.text').textContent()).resolves.toBe(attack);
    await expect(entry.locator('.who').textContent()).resolves.toBe('<b>eve</b>');
    await expect(entry.locator('.intent-name').textContent()).resolves.toBe('<script>alert(2)</script>');
    await expect(entry.locator('.input-value').textContent()).resolves.toBe('<svg onload=alert(3)>');
    await expect(page.locator('.entry.outgoing .button').textContent()).resolves.toBe('<button onclick=alert(4)>go</button>');
    await page.getByRole('tab', { name: 'Conversations' }).click();
    await expect(page.locator('.row[data-id="<em>conv</em>"] .chip.channel').textContent()).resolves.toBe('<u>web</u>');
    // The same text in the analytics views: the Messages view lists the message and the intent.
    await page.locator('.views a[data-view="messages"]').click();
    await expect.poll(async () => (await tableRows(page, 'top-messages')).some((row) => row[0] === attack)).toBe(true);
    await expect.poll(async () => (await tableRows(page, 'intents')).some((row) => row[0] === '<script>alert(2)</script>')).toBe(true);
    // No element was made from any of it: no img, b, i, u, em, svg-with-onload or inline script anywhere.
    const made = await page.evaluate(() =>
      document.querySelectorAll('#app img, #app b, #app i, #app u, #app em, #app svg[onload], #app .bubble button, script:not([src])').length);
    expect(made).toBe(0);
    // A javascript: image URL is a plain tile, not a link.
    await page.locator('.views a[data-view="conversations"]').click();
    await expect(page.locator('.entry.outgoing .thumb').evaluate((node) => node.tagName)).resolves.toBe('SPAN');
  });
});
