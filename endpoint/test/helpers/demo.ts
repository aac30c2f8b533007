/**
 * An endpoint on 127.0.0.1 with a temp database, and the demo's records in it (the demo's pizza
 * agent on the Agents SDK's CloudAdapter, tracked by a real TrackingClient): for the page's tests
 * and the CLI's.
 *
 * The test file must mock the package name the samples import:
 *   vi.mock('botbuilder-conversation-analytics', () => import('botbuilder-conversation-analytics'));
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrackingClient, TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { startTrackingEndpoint, type TrackingEndpoint, type TrackingEndpointOptions } from '../../src/index.js';

/** The key the test endpoints accept. */
export const KEY = 'viewer-test-key-1';

const load = (path: string): Promise<any> => import(/* @vite-ignore */ new URL(path, import.meta.url).href);

/** Starts an endpoint on a free port with a fresh temp data file; `close()` also removes the file. */
export async function startEndpoint(options: TrackingEndpointOptions = {}): Promise<TrackingEndpoint & { close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'viewer-test-'));
  const endpoint = await startTrackingEndpoint({ port: 0, host: '127.0.0.1', apiKeys: [KEY], database: join(dir, 'tracking.db'), log: () => undefined, closeGraceMs: 200, ...options });
  return {
    ...endpoint,
    async close() {
      await endpoint.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Plays the demo's scripted conversation (samples/demo) through the demo's pizza bot on a real
 * Agents SDK CloudAdapter, tracking to `baseUrl`, and waits until every record is delivered.
 */
export async function playDemo(baseUrl: string): Promise<{ delivered: number }> {
  const { startChannelService } = await load('../../../samples/lib/channel-service.mjs');
  const { startAgentServer } = await load('../../../samples/lib/agent-server.mjs');
  const { SCRIPT, prepare } = await load('../../../samples/demo/conversation.mjs');
  const { createPizzaAgent } = await load('../../../samples/demo/pizza-bot.mjs');
  const channel = await startChannelService('reply-');
  const agent = createPizzaAgent();
  const client = new TrackingClient({ apiKey: KEY, baseUrl, logger: false });
  agent.adapter.use(new TrackingMiddleware(client));
  const bot = await startAgentServer({ agent, port: 0, authConfig: {} });
  try {
    for (const [index, step] of (SCRIPT as Record<string, unknown>[]).entries()) {
      // A rating (Teams' feedback invoke) names the reply it rates, as the demo's run does.
      const activity = { ...prepare(step, channel.sent), id: `activity-${index + 1}`, serviceUrl: channel.url, timestamp: new Date().toISOString() };
      const res = await fetch(bot.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(activity) });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`the demo bot answered ${res.status}`);
    }
    await client.flush();
    return { delivered: client.stats().delivered };
  } finally {
    await bot.close();
    await client.close();
    await channel.close();
  }
}

