/**
 * The samples as a user runs them: each one's index.mjs in a process of its own (against src/),
 * configured from the environment, talked to over HTTP, tracking to a real local endpoint.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTrackingEndpoint, type TrackingEndpoint } from '../../src/endpoint/index.js';
import { startChannelService, type ChannelService } from '../helpers/channel-service.js';
import { runScript, startScript } from '../helpers/run-script.js';

const KEY = 'samples-key-7c21e0';
const SOURCE = ['--import', './test/faults/fixtures/use-source.mjs'];

const load = (path: string): Promise<any> => import(/* @vite-ignore */ new URL(path, import.meta.url).href);

let endpoint: TrackingEndpoint;
let channel: ChannelService;

beforeAll(async () => {
  endpoint = await startTrackingEndpoint({ port: 0, dataFile: false, apiKeys: [KEY], log: () => undefined });
  channel = await startChannelService();
});
afterAll(async () => {
  await channel.close();
  await endpoint.close();
});

/** A free TCP port on this machine (the Agents SDK's startServer takes its port from PORT and cannot listen on 0 and say where). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function message(text: string, id: string): Record<string, unknown> {
  return {
    type: 'message', id, channelId: 'msteams', serviceUrl: channel.url, text,
    from: { id: 'sample-user', name: 'Sam' }, recipient: { id: 'agent', name: 'Shop' }, conversation: { id: 'sample-conv' },
  };
}

async function postUntilUp(url: string, body: Record<string, unknown>, deadline: number): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await response.arrayBuffer();
      return response.status;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('samples/agent (Agents SDK, its express host)', () => {
  it('answers on PORT, records each message in and out with the agent\'s intent, and on SIGTERM delivers what it logged and exits', async () => {
    const port = await freePort();
    const agent = startScript('samples/agent/index.mjs', {
      nodeArgs: SOURCE,
      env: { TRACKING_API_KEY: KEY, TRACKING_BASE_URL: endpoint.url, PORT: String(port), clientId: '', connections__serviceConnection__settings__clientId: '' },
      timeoutMs: 30_000,
    });
    const url = `http://127.0.0.1:${port}/api/messages`;
    expect(await postUntilUp(url, message('order pizza', 'sample-1'), Date.now() + 20_000)).toBe(200);
    expect(await postUntilUp(url, message('menu', 'sample-2'), Date.now() + 5_000)).toBe(200);
    process.kill(agent.pid, 'SIGTERM');
    const result = await agent.result;
    expect(result.stdout).toContain(`Server listening to port ${port}`);
    expect(result.stderr).toMatch(/SIGTERM: tracking closed: 5 delivered, 0 given up, 0 dropped/);
    expect(channel.sent.map((s) => s.activity.text ?? s.activity.attachments?.[0]?.contentType)).toEqual(['One pizza, coming up.', 'application/vnd.microsoft.card.adaptive']);
    const response = await fetch(`${endpoint.url}/api/transcript?user=sample-user`);
    const { entries } = (await response.json()) as { entries: { direction: string; text?: string; intent?: { name: string } }[] };
    expect(entries.map((e) => [e.direction, e.intent?.name])).toEqual([
      ['incoming', 'Order'],
      ['event', undefined],
      ['outgoing', undefined],
      ['incoming', 'ShowMenu'],
      ['outgoing', undefined],
    ]);
  }, 40_000);

  it('stops at once, saying what to set, without TRACKING_API_KEY', async () => {
    const result = await runScript('samples/agent/index.mjs', { nodeArgs: SOURCE, env: { TRACKING_API_KEY: '', TRACKING_BASE_URL: endpoint.url, PORT: String(await freePort()) } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/TrackingConfigError/);
    expect(result.stderr).toMatch(/TRACKING_API_KEY/);
  }, 20_000);
});

describe('samples/lib/bot-server.mjs (botbuilder samples)', () => {
  it('authenticates from the environment the way botbuilder samples do: app type, id, password and tenant', async () => {
    const { createCloudAdapter } = await load('../../samples/lib/bot-server.mjs');
    // A SingleTenant bot needs its tenant: the setting is read, not ignored.
    expect(() => createCloudAdapter({ MicrosoftAppType: 'SingleTenant', MicrosoftAppId: 'app-id', MicrosoftAppPassword: 'secret' })).toThrow(/MicrosoftAppTenantId/);
    expect(() => createCloudAdapter({ MicrosoftAppType: 'SingleTenant', MicrosoftAppId: 'app-id', MicrosoftAppPassword: 'secret', MicrosoftAppTenantId: 'tenant-1' })).not.toThrow();
  });

  it('refuses an unauthenticated request once MicrosoftAppId is set, and takes one without it locally', async () => {
    const { createCloudAdapter, startBotServer } = await load('../../samples/lib/bot-server.mjs');
    const bot = { run: async (context: { sendActivity(text: string): Promise<unknown> }) => void (await context.sendActivity('hi')) };
    const secured = await startBotServer({ adapter: createCloudAdapter({ MicrosoftAppType: 'MultiTenant', MicrosoftAppId: 'app-id', MicrosoftAppPassword: 'secret' }), bot, port: 0 });
    const local = await startBotServer({ adapter: createCloudAdapter({}), bot, port: 0 });
    // botbuilder prints the refused request's AuthenticationError; keep it out of the test output.
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await postUntilUp(secured.url, message('hello', 'auth-1'), Date.now())).toBe(401);
      expect(await postUntilUp(local.url, message('hello', 'auth-2'), Date.now())).toBe(200);
    } finally {
      printed.mockRestore();
      await secured.close();
      await local.close();
    }
  });
});
