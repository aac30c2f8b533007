import { execFile, spawn } from 'node:child_process';
import { readdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

/** The demo's data folders (`conversation-analytics-demo-*` in the temp folder) that exist now. */
const demoFolders = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('conversation-analytics-demo-')));

it('`npm start` says it is building first when it must, plays the scripted conversation through an AgentApplication on the Agents SDK CloudAdapter and prints what the endpoint received', async () => {
  // A source newer than the packages' builds, as on the first run: `npm start` builds both before the demo.
  const now = new Date();
  utimesSync('src/index.ts', now, now);
  const { stdout } = await run('npm', ['start', '--silent'], { env: { ...process.env, TRACKING_API_KEY: '', TRACKING_BASE_URL: '' }, timeout: 150_000 });
  // The build's half minute of silence is announced, first thing.
  expect(stdout.split('\n')[0]).toBe('Building the packages (first run only, or after a source changed; ~30 s)…');
  // The conversation ran through the agent, on the Agents SDK.
  expect(stdout).toMatch(/Agent \(Microsoft 365 Agents SDK, AgentApplication\): http:\/\/127\.0\.0\.1:\d+\/api\/messages/);
  expect(stdout).toContain("PizzaBot: I'm only a pizza shop assistant, so I can't help with that. Say help for ideas. [AI generated]");
  expect(stdout).toContain('Ada (webchat): hi there');
  expect(stdout).toContain('PizzaBot: One margherita coming up: 9.50 EUR. Thank you!');
  expect(stdout).toContain('Linus (facebook): order pepperoni');
  // A Teams user rates two replies, with Teams' feedback invoke.
  expect(stdout).toContain('Mei (msteams): [thumbs up] Clear, thanks');
  expect(stdout).toContain('Mei (msteams): [thumbs down] It did not answer my question');
  // Everything was delivered, nothing lost.
  expect(stdout).toMatch(/Tracking: 27 records delivered, 0 given up, 0 dropped\./);
  // The transcripts show intents from the recognizer, the card's buttons and image, the click and the revenue event.
  expect(stdout).toContain('intent: OrderPizza (pizza=pepperoni, size=large, score=0.9)');
  expect(stdout).toContain('intent: NotHandled');
  expect(stdout).toMatch(/buttons: margherita \(9\.50 EUR\) \| /);
  expect(stdout).toContain('images: https://example.com/images/margherita.png');
  expect(stdout).toContain('clicked: margherita (9.50 EUR)');
  expect(stdout).toMatch(/revenueEvent "pizza-order" 9\.50 EUR/);
  expect(stdout).toContain('Transcript of user 2718281828 (facebook)');
  // And the summary.
  expect(stdout).toMatch(/by type:\s+incoming 11, outgoing 11, event 5/);
  expect(stdout).toMatch(/revenue:\s+EUR 31\.5 from 3 revenue events/);
  // Nothing but the demo's own output: no build noise, and the last line does not invite you to open a page that has stopped.
  expect(stdout).not.toMatch(/tsup|ESM Build|CJS Build|DTS Build|dist\//);
  expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/endpoint has stopped.*npm start -- --serve/);
}, 180_000);

it('`npm start -- --serve` keeps the endpoint running after the demo: it prints the address, the page answers there, /api/summary has the demo\'s records, and SIGTERM stops it', async () => {
  // `npm start` is the build check and then this script; the script is run directly so the signal reaches it, not npm.
  await run(process.execPath, ['scripts/build-if-stale.mjs'], { timeout: 150_000 });
  // Built now: a second check builds nothing and says nothing.
  await expect(run(process.execPath, ['scripts/build-if-stale.mjs'], { timeout: 30_000 })).resolves.toEqual({ stdout: '', stderr: '' });
  const before = demoFolders();
  const demo = spawn(process.execPath, ['samples/demo/run.mjs', '--serve'], {
    env: { ...process.env, TRACKING_API_KEY: '', TRACKING_BASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  demo.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => demo.on('close', (code, signal) => resolve({ code, signal })));
  const killer = setTimeout(() => demo.kill('SIGKILL'), 90_000);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      demo.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        const m = /The endpoint keeps running at (http:\/\/127\.0\.0\.1:\d+) \(page: \1\/\)\. Press Ctrl-C to stop\./.exec(stdout);
        if (m) resolve(m[1]);
      });
      void exited.then(({ code }) => reject(new Error(`the demo exited (${code}) before serving:\n${stdout}\n${stderr}`)));
    });
    // It ran the whole demo first.
    expect(stdout).toMatch(/Tracking: 27 records delivered, 0 given up, 0 dropped\./);

    // The page, as a browser opening the printed address asks for it, and the script it loads.
    const page = await fetch(`${url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<title>Conversation analytics</title>');
    expect(html).not.toContain('key-form'); // the page itself, not the form that asks for a key
    const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const app = await fetch(new URL(script as string, `${url}/`));
    expect(app.status).toBe(200);
    expect(app.headers.get('content-type')).toMatch(/javascript/);
    expect((await app.text()).length).toBeGreaterThan(1000);

    const response = await fetch(`${url}/api/summary`);
    expect(response.status).toBe(200);
    const summary = (await response.json()) as { records: number; byType: Record<string, number>; revenue: { total: number; count: number } };
    expect(summary.records).toBe(27);
    expect(summary.byType).toMatchObject({ incoming: 11, outgoing: 11, event: 5 });
    expect(summary.revenue).toEqual({ total: 31.5, count: 3, byCurrency: { EUR: 31.5 } });

    // Every Feedback & AI figure has data: Mei's thumbs up on the help and down on the AI-generated
    // fallback, per day, per intent of the rated reply, with her comments; and the AI-generated share.
    const feedback = (await (await fetch(`${url}/api/analytics/feedback`)).json()) as {
      up: number; down: number; perDay: { up: number; down: number }[]; perIntent: { intent: string | null; up: number; down: number }[];
      comments: { comment: string; reaction: string; userName: string | null; intent: string | null; replyTo: string | null }[]; ai: { replies: number; aiGenerated: number };
    };
    expect([feedback.up, feedback.down]).toEqual([1, 1]);
    expect(feedback.perDay.reduce((sum, d) => sum + d.up + d.down, 0)).toBe(2);
    expect(feedback.perIntent.map(({ intent, up, down }) => ({ intent, up, down })).sort((a, b) => String(a.intent).localeCompare(String(b.intent)))).toEqual([
      { intent: 'Help', up: 1, down: 0 },
      { intent: 'NotHandled', up: 0, down: 1 },
    ]);
    expect(feedback.comments.map(({ comment, reaction, userName, intent }) => ({ comment, reaction, userName, intent })).sort((a, b) => a.comment.localeCompare(b.comment))).toEqual([
      { comment: 'Clear, thanks', reaction: 'like', userName: 'Mei', intent: 'Help' },
      { comment: 'It did not answer my question', reaction: 'dislike', userName: 'Mei', intent: 'NotHandled' },
    ]);
    // Each rating names the reply it rates, by the id the channel gave it, as Teams sends it.
    expect(feedback.comments.map((c) => c.replyTo)).toEqual([expect.stringMatching(/^reply-\d+$/), expect.stringMatching(/^reply-\d+$/)]);
    expect(feedback.ai).toMatchObject({ replies: 11, aiGenerated: 2 });

    demo.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    // Stopped: nothing answers at the address any more, and the demo's data folder is gone.
    await expect(fetch(`${url}/api/summary`)).rejects.toThrow();
    expect([...demoFolders()].filter((name) => !before.has(name))).toEqual([]);
  } finally {
    clearTimeout(killer);
    if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGKILL');
  }
}, 150_000);
