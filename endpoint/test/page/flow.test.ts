/**
 * The flow diagram (Sankey) in a real headless Chromium, over sessions whose paths are known:
 * each node as tall as the sessions that reached its step, and the sessions that ended after a
 * step flowing into an "Ended" sink (issue 30, point 7: with `Echo` alone and
 * `Echo › Help › Buy › purchase`, the diagram showed one full-height band and "Step 1: Echo —
 * sessions 1", and sessions that ended early vanished).
 *
 * Six sessions, one user each, dated as they are sent:
 *   u1  Echo
 *   u2  Echo › Help › Buy › purchase (event)
 *   u3  Echo › Help
 *   u4  Echo › Help › Buy
 *   u5  Help
 *   u6  Echo › Help › Buy › purchase (event)
 * So: step 1 Echo 5 (1 ended there), Help 1 (ended); step 2 Help 4 (1 ended); step 3 Buy 3 (1 ended);
 * step 4 purchase 2 (both ended there, the diagram's last step). "Ended" after step 1: 2, after step 2: 1, after step 3: 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { PathsResponse } from '../../src/index.js';
import { KEY, startEndpoint, usePages } from './harness.js';

const SESSIONS: Record<string, string[]> = {
  u1: ['Echo'],
  u2: ['Echo', 'Help', 'Buy', 'event:purchase'],
  u3: ['Echo', 'Help'],
  u4: ['Echo', 'Help', 'Buy'],
  u5: ['Help'],
  u6: ['Echo', 'Help', 'Buy', 'event:purchase'],
};

let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
const pages = usePages();

async function send(type: 'incoming' | 'event', body: unknown): Promise<void> {
  const query = new URLSearchParams({ platform: 'twitter', v: '11.1.0-rest', type, apiKey: KEY });
  const res = await fetch(`${endpoint.url}/track?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  endpoint = await startEndpoint();
  // One step at a time, each dated when it is sent (the endpoint's receipt), so each user's steps happen in order.
  for (const [userId, steps] of Object.entries(SESSIONS)) {
    for (const step of steps) {
      if (step.startsWith('event:')) await send('event', { name: step.slice(6), type: 'customEvent', userId });
      else await send('incoming', { text: `${step.toLowerCase()} please`, userId, intent: { name: step, inputs: [] } });
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
});

async function paths(): Promise<PathsResponse> {
  const res = await fetch(`${endpoint.url}/api/analytics/paths?limit=200`);
  expect(res.status).toBe(200);
  return res.json() as Promise<PathsResponse>;
}

/** Every node of the diagram, by pointing at it: its tooltip's title and rows, and its bar's height (px). */
async function nodes(page: Page): Promise<{ label: string; title: string; rows: string[]; height: number }[]> {
  // Where each label is, read at once (pointing at a node redraws the chart, and its text elements with it).
  const labels = await page.locator('[data-chart="flow"] svg text').evaluateAll((texts) => texts.map((text) => {
    const r = text.getBoundingClientRect();
    return { label: text.textContent ?? '', x: r.left - 8, y: r.top + r.height / 2 };
  }));
  const found: { label: string; title: string; rows: string[]; height: number }[] = [];
  const title = page.locator('.chart-tip .tip-title');
  for (const { label, x, y } of labels) {
    await page.mouse.move(x, y);
    // The node's bar is the shape under the pointer, left of its label.
    const height = await page.evaluate(([px, py]) => document.elementFromPoint(px, py)?.getBoundingClientRect().height ?? 0, [x, y]);
    // This node's tooltip, not the last one's (every node's title differs here).
    const previous = found.at(-1)?.title ?? '';
    await expect.poll(async () => {
      const now = (await title.textContent().catch(() => '')) ?? '';
      return /^(Step|Ended)/.test(now) && now !== previous;
    }).toBe(true);
    const rows = await page.locator('.chart-tip .tip-row').evaluateAll((list) => list.map((row) => [...row.querySelectorAll('.tip-name, .tip-value')].map((c) => c.textContent).join(' ')));
    found.push({ label, title: (await title.textContent()) ?? '', rows, height });
  }
  return found;
}

describe('the flow diagram', () => {
  it('gets from the paths API every session, the one-step ones too: 6 sessions, by path', async () => {
    const body = await paths();
    expect(body.sessions).toBe(6);
    expect(body.paths.map((p) => [p.steps.join(' > '), p.sessions])).toEqual([
      ['Echo > Help > Buy > event:purchase', 2],
      ['Echo', 1],
      ['Echo > Help', 1],
      ['Echo > Help > Buy', 1],
      ['Help', 1],
    ]);
    expect(body.paths.reduce((sum, p) => sum + p.sessions, 0)).toBe(body.sessions);
  });

  it('sizes each step by the sessions that reached it and shows where sessions ended', async () => {
    const { page } = await pages.open(endpoint.url, { width: 1280 });
    await page.goto(`${endpoint.url}/#view=flow`);
    await page.locator('[data-table="flow"] tbody tr').first().waitFor({ state: 'attached' });
    // The table beside the chart: each chain of steps, its sessions, and those that ended there.
    const rows = await page.locator('[data-table="flow"] tbody tr').evaluateAll((list) => list.map((row) => [
      row.querySelector('[data-steps]')?.getAttribute('data-steps') ?? '',
      ...[...row.children].slice(1).map((cell) => (cell.textContent ?? '').trim()),
    ]));
    expect(rows).toEqual([
      ['Echo', '5', '1'],
      ['Echo > Help', '4', '1'],
      ['Echo > Help > Buy', '3', '1'],
      ['Echo > Help > Buy > event:purchase', '2', '2'],
      ['Help', '1', '1'],
    ]);
    const chart = page.locator('[data-chart="flow"]');
    await expect.poll(() => chart.locator('svg text').allTextContents()).toEqual(expect.arrayContaining(['Echo', 'Help', 'Buy', 'purchase (event)', 'Ended']));
    const drawn = await nodes(page);
    const byTitle = new Map(drawn.map((n) => [n.title, n]));
    expect([...byTitle.keys()].sort()).toEqual([
      'Ended after step 1', 'Ended after step 2', 'Ended after step 3',
      'Step 1: Echo', 'Step 1: Help', 'Step 2: Help', 'Step 3: Buy', 'Step 4: purchase (event)',
    ]);
    expect(byTitle.get('Step 1: Echo')!.rows).toEqual(['sessions 5', 'ended here 1']);
    expect(byTitle.get('Step 1: Help')!.rows).toEqual(['sessions 1', 'ended here 1']);
    expect(byTitle.get('Step 2: Help')!.rows).toEqual(['sessions 4', 'ended here 1']);
    expect(byTitle.get('Step 3: Buy')!.rows).toEqual(['sessions 3', 'ended here 1']);
    expect(byTitle.get('Step 4: purchase (event)')!.rows).toEqual(['sessions 2', 'ended here 2']);
    expect(byTitle.get('Ended after step 1')!.rows).toEqual(['sessions 2']);
    expect(byTitle.get('Ended after step 2')!.rows).toEqual(['sessions 1']);
    expect(byTitle.get('Ended after step 3')!.rows).toEqual(['sessions 1']);
    // Heights in proportion to sessions: Echo (5) five times Help (1) at step 1, Help (4) at step 2 four times.
    const unit = byTitle.get('Step 1: Help')!.height;
    expect(unit).toBeGreaterThan(2);
    expect(byTitle.get('Step 1: Echo')!.height / unit).toBeCloseTo(5, 0);
    expect(byTitle.get('Step 2: Help')!.height / unit).toBeCloseTo(4, 0);
    expect(byTitle.get('Step 3: Buy')!.height / unit).toBeCloseTo(3, 0);
    expect(byTitle.get('Ended after step 1')!.height / unit).toBeCloseTo(2, 0);
  });
});
