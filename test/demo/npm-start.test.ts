import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

it('`npm start` plays the scripted conversation through an AgentApplication on the Agents SDK CloudAdapter and prints what the endpoint received', async () => {
  const { stdout } = await run('npm', ['start', '--silent'], { env: { ...process.env, TRACKING_API_KEY: '', TRACKING_BASE_URL: '' }, timeout: 90_000 });
  // The conversation ran through the agent, on the Agents SDK.
  expect(stdout).toMatch(/Agent \(Microsoft 365 Agents SDK, AgentApplication\): http:\/\/127\.0\.0\.1:\d+\/api\/messages/);
  expect(stdout).toContain("PizzaBot: I'm only a pizza shop assistant, so I can't help with that. Say help for ideas. [AI generated]");
  expect(stdout).toContain('Ada (webchat): hi there');
  expect(stdout).toContain('PizzaBot: One margherita coming up: 9.50 EUR. Thank you!');
  expect(stdout).toContain('Linus (facebook): order pepperoni');
  // Everything was delivered, nothing lost.
  expect(stdout).toMatch(/Tracking: 21 records delivered, 0 given up, 0 dropped\./);
  // The transcripts show intents from the recognizer, the card's buttons and image, the click and the revenue event.
  expect(stdout).toContain('intent: OrderPizza (pizza=pepperoni, size=large)');
  expect(stdout).toContain('intent: NotHandled');
  expect(stdout).toMatch(/buttons: \[order margherita\] margherita \(9\.50 EUR\)/);
  expect(stdout).toContain('images: https://example.com/images/margherita.png');
  expect(stdout).toContain('clicked: order margherita');
  expect(stdout).toMatch(/revenueEvent "pizza-order" amount 9\.5/);
  expect(stdout).toContain('Transcript of user 2718281828 (facebook)');
  // And the summary.
  expect(stdout).toMatch(/by type:\s+incoming 9, outgoing 9, event 3/);
  expect(stdout).toMatch(/revenue:\s+31\.5 from 3 revenue events/);
  // Nothing but the demo's own output: no build noise, and the last line does not invite you to open a page that has stopped.
  expect(stdout).not.toMatch(/tsup|ESM Build|CJS Build|DTS Build|dist\//);
  expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/endpoint has stopped.*npm start -- --serve/);
}, 120_000);
