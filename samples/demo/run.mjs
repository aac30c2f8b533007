// `npm start`: the one-command demo. It starts the bundled tracking endpoint on a free loopback
// port, runs the pizza agent (Microsoft 365 Agents SDK: an AgentApplication on its CloudAdapter,
// hosted the way the SDK's express host does it) over loopback HTTP with TrackingMiddleware,
// plays a scripted conversation (webchat, messenger and Teams users, who rate replies), and prints what the endpoint
// received: transcripts and a summary. No key and no network beyond loopback.
//
//   npm start                 run the demo and exit
//   npm start -- --serve      keep the endpoint (and its page) running afterwards, until Ctrl-C
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TrackingClient, TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { startTrackingEndpoint } from 'botbuilder-conversation-analytics-endpoint';
import { startAgentServer } from '../lib/agent-server.mjs';
import { startChannelService } from '../lib/channel-service.mjs';
import { describeStep, prepare, SCRIPT } from './conversation.mjs';
import { createPizzaAgent } from './pizza-bot.mjs';

// The endpoint package's command (`npx botbuilder-conversation-analytics-endpoint transcript` for a user).
const endpointPackage = path.dirname(createRequire(import.meta.url).resolve('botbuilder-conversation-analytics-endpoint/package.json'));
const cli = path.join(endpointPackage, JSON.parse(fs.readFileSync(path.join(endpointPackage, 'package.json'), 'utf8')).bin['botbuilder-conversation-analytics-endpoint']);
const serve = process.argv.includes('--serve');
const API_KEY = 'demo-key-0001';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'conversation-analytics-demo-'));
const endpoint = await startTrackingEndpoint({ port: 0, apiKeys: [API_KEY], database: path.join(dataDir, 'tracking.db'), log: () => undefined });
const channel = await startChannelService('reply-');

const agent = createPizzaAgent();
const client = new TrackingClient({ apiKey: API_KEY, baseUrl: endpoint.url });
agent.adapter.use(new TrackingMiddleware(client));
const bot = await startAgentServer({ agent, port: 0, authConfig: {} }); // no client id: anonymous, local use only

console.log(`Tracking endpoint: ${endpoint.url}`);
console.log(`Agent (Microsoft 365 Agents SDK, AgentApplication): ${bot.url}\n`);
console.log('The conversation:');

let failed = false;
for (const [index, step] of SCRIPT.entries()) {
  const now = Date.now();
  const activity = { ...prepare(step, channel.sent), id: `activity-${index + 1}`, serviceUrl: channel.url, timestamp: new Date(now).toISOString() };
  // The facebook channel's original event carries when it was sent: the moment it is sent here.
  if (activity.channelData?.timestamp !== undefined) activity.channelData = { ...activity.channelData, timestamp: now };
  const before = channel.sent.length;
  const res = await fetch(bot.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(activity) });
  if (!res.ok) {
    failed = true;
    console.error(`  the bot answered HTTP ${res.status} to "${describeStep(step)}"`);
  }
  console.log(`  ${step.from.name} (${step.channelId}): ${describeStep(step)}`);
  for (const { activity: reply } of channel.sent.slice(before)) {
    if (reply?.type !== 'message') continue;
    const card = reply.attachments?.length ? ` [card: ${reply.attachments.map((a) => a.content?.title ?? a.contentType).join(', ')}]` : '';
    const ai = reply.entities?.some((e) => e.additionalType?.includes('AIGeneratedContent')) ? ' [AI generated]' : '';
    console.log(`    PizzaBot: ${reply.text ?? ''}${card}${ai}`);
  }
}

await client.flush();
const stats = client.stats();
console.log(`\nTracking: ${stats.delivered} records delivered, ${stats.failed} given up, ${stats.dropped} dropped.\n`);
if (stats.failed > 0 || stats.dropped > 0) failed = true;

console.log('What the tracking endpoint received:\n');
const { stdout } = await promisify(execFile)(process.execPath, [cli, 'transcript', '--url', endpoint.url]);
process.stdout.write(stdout);

await bot.close();
await client.close();
await channel.close();

if (serve) {
  console.log(`\nThe endpoint keeps running at ${endpoint.url} (page: ${endpoint.url}/). Press Ctrl-C to stop.`);
  const stop = async () => {
    await endpoint.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else {
  console.log('\nThe demo is over and its endpoint has stopped. To read these transcripts on the page, run `npm start -- --serve`: it keeps the endpoint and its page running and prints the address to open.');
  await endpoint.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exitCode = failed ? 1 : 0;
}
