/**
 * What the page tests need: an endpoint on 127.0.0.1 with a temp database holding the demo's
 * records (the demo's pizza agent on the Agents SDK's CloudAdapter, tracked by a real
 * TrackingClient), the generated dataset with known answers (endpoint/test/helpers/dataset.ts) or the
 * realistic live one (live-dataset.ts), and a
 * headless Chromium page that fails the test on any dialog, script error, console error,
 * Content-Security-Policy violation, HTML parsed from a string, or request that leaves the
 * endpoint.
 *
 * The test file must mock the package name the samples import:
 *   vi.mock('botbuilder-conversation-analytics', () => import('botbuilder-conversation-analytics'));
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startEndpoint } from '../helpers/demo.js';
import { DATASET_KEY, loadDataset, OTHER_BOT_KEY } from '../helpers/dataset.js';
import { LIVE_PIZZA_KEY, LIVE_SUPPORT_KEY, loadLiveDataset } from './live-dataset.js';

// The endpoint with a temp database and the demo's records: in a helper without DOM types, for the CLI's tests too.
export { KEY, playDemo, startEndpoint } from '../helpers/demo.js';

/** A third bot of the dataset endpoint (`shop`), for records a test adds without changing the dataset's figures. */
export const SHOP_KEY = 'shop-key-3';

/** Where screenshots go (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));


/**
 * Starts an endpoint that knows the dataset's bots by name (`pizza`, `support`, and `shop` for a
 * test's own records) and loads the dataset into it.
 */
export async function startDatasetEndpoint(): Promise<Awaited<ReturnType<typeof startEndpoint>>> {
  const endpoint = await startEndpoint({ apiKeys: [`pizza=${DATASET_KEY}`, `support=${OTHER_BOT_KEY}`, `shop=${SHOP_KEY}`] });
  await loadDataset(endpoint.url);
  return endpoint;
}

/**
 * Starts an endpoint that knows the live dataset's bots by name (`pizza`, `support`) and loads
 * the live dataset into it (live-dataset.ts: twelve weeks up to now, the current one not over).
 */
export async function startLiveDatasetEndpoint(): Promise<Awaited<ReturnType<typeof startEndpoint>>> {
  const endpoint = await startEndpoint({ apiKeys: [`pizza=${LIVE_PIZZA_KEY}`, `support=${LIVE_SUPPORT_KEY}`] });
  await loadLiveDataset(endpoint.url);
  return endpoint;
}

/** Launches Debian's Chromium headless, with a fresh profile and no background traffic. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The pages of one test file: each test opens its own, closed after it. */
export interface Pages {
  /** Opens a watched page (see openPage) on the file's browser; it is closed after the test, which fails if it (or any other page the test opened) had a problem. */
  open(origin: string, options?: PageOptions): Promise<WatchedPage>;
  /** The page the running test opened last, if it opened one. */
  readonly current: WatchedPage | undefined;
}

/**
 * Registers a page test file's hooks: Chromium is launched before all (while the file's own
 * `beforeAll` starts its endpoints) and closed after all; after each test, the pages it opened are
 * closed, and the test fails if, whatever it did, a page showed a dialog, threw, logged an
 * error, broke its Content-Security-Policy, parsed HTML from a string or left the endpoint.
 */
export function usePages(): Pages {
  let browser: Promise<Browser> | undefined;
  let opened: WatchedPage[] = [];
  beforeAll(() => {
    browser = launchBrowser();
    // Awaited by the first open(); a launch that fails fails that test, and is not left unhandled.
    browser.catch(() => undefined);
  });
  afterEach(async () => {
    const pages = opened;
    opened = [];
    await Promise.all(pages.map((page) => page.close()));
    expect(pages.flatMap((page) => page.problems)).toEqual([]);
  });
  afterAll(async () => {
    await (await browser?.catch(() => undefined))?.close();
  });
  return {
    async open(origin, options) {
      if (browser === undefined) throw new Error('usePages(): open() is for tests, after the browser is launched');
      const watched = await openPage(await browser, origin, options);
      opened.push(watched);
      return watched;
    },
    get current() {
      return opened.at(-1);
    },
  };
}

/** A page and what went wrong on it. */
export interface WatchedPage {
  page: Page;
  /** Dialogs (alert…), uncaught errors, console errors, and requests to anywhere but the endpoint. */
  problems: string[];
  /** Every URL the page requested. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * In the page, before its own script: reports every Content-Security-Policy violation, and every
 * time HTML is parsed from a string (`innerHTML` set to anything but nothing: the page and the
 * libraries it bundles must build elements, not parse markup).
 */
function watchInPage(): void {
  const report = (problem: string) => (window as unknown as { reportProblem?: (p: string) => void }).reportProblem?.(problem);
  document.addEventListener('securitypolicyviolation', (event) => report(`CSP violation: ${event.violatedDirective} ${event.blockedURI} ${event.sample}`));
  const inner = Object.getOwnPropertyDescriptor(Element.prototype, 'innerHTML')!;
  Object.defineProperty(Element.prototype, 'innerHTML', {
    ...inner,
    set(this: Element, value: unknown) {
      if (value !== null && value !== undefined && String(value) !== '') report(`HTML parsed from a string into <${this.tagName.toLowerCase()}>: ${String(value).slice(0, 80)}`);
      inner.set!.call(this, value);
    },
  });
}

/** How a watched page is opened. */
export interface PageOptions {
  /** URL prefixes a request may go to besides the endpoint (a test that serves them itself). */
  allow?: readonly string[];
  /** Viewport width (default 1280) and height (default 900). */
  width?: number;
  height?: number;
}

/**
 * Opens a new page (its own context) that records every problem, and every URL it requests.
 * Requests to URLs starting with one of `allow` are not problems. Motion is reduced (charts draw
 * at once, so screenshots are stable).
 */
export async function openPage(browser: Browser, origin: string, { allow = [], width = 1280, height = 900 }: PageOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width, height }, locale: 'en-US', timezoneId: 'UTC', reducedMotion: 'reduce', acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  await page.exposeFunction('reportProblem', (problem: string) => problems.push(problem));
  await page.addInitScript(watchInPage);
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.type()} ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('request', (request) => {
    const url = request.url();
    requests.push(url);
    // blob: URLs are downloads the page made from what it read (they never leave the browser).
    if (![`${origin}/`, 'data:', `blob:${origin}/`, ...allow].some((prefix) => url.startsWith(prefix))) problems.push(`request off the endpoint: ${url}`);
  });
  return { page, problems, requests, close: () => context.close() };
}

/** Saves a full-page screenshot as `endpoint/test/artifacts/<name>.png` (or in `dir`) and returns its path. */
export async function screenshot(page: Page, name: string, dir = ARTIFACTS): Promise<string> {
  const path = join(dir, `${name}.png`);
  await mkdir(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** How wide the document is against the window: wider means the page scrolls sideways. */
export function widths(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth }));
}

/** The text of each row of the table named `name` (`data-table`), cells trimmed. */
export function tableRows(page: Page, name: string): Promise<string[][]> {
  return page.locator(`[data-table="${name}"] tbody tr`).evaluateAll((rows) =>
    rows.map((row) => [...row.children].map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim())));
}
