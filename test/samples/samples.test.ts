/**
 * The samples as a user runs them: each one's index.mjs in a process of its own (against src/),
 * configured from the environment, talked to over HTTP, tracking to a real local endpoint.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTrackingEndpoint, type TrackingEndpoint } from 'botbuilder-conversation-analytics-endpoint';
import { startChannelService, type ChannelService } from '../helpers/channel-service.js';
import { runScript, startScript } from '../helpers/run-script.js';
import { ANONYMOUS, SOURCE, freePort, message as activity, postUntilUp } from './helpers.js';

const KEY = 'samples-key-7c21e0';

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

const message = (text: string, id: string) => activity(channel.url, text, id);

describe('samples/agent (Agents SDK, its express host)', () => {
  it('answers on PORT, records each message in and out with the agent\'s intent, and on SIGTERM delivers what it logged and exits', async () => {
    const port = await freePort();
    const agent = startScript('samples/agent/index.mjs', {
      nodeArgs: SOURCE,
      env: { ...ANONYMOUS, TRACKING_API_KEY: KEY, TRACKING_BASE_URL: endpoint.url, PORT: String(port) },
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
    const result = await runScript('samples/agent/index.mjs', { nodeArgs: SOURCE, env: { ...ANONYMOUS, TRACKING_API_KEY: '', TRACKING_BASE_URL: endpoint.url, PORT: String(await freePort()) } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/TrackingConfigError/);
    expect(result.stderr).toMatch(/TRACKING_API_KEY/);
  }, 20_000);

  /**
   * Starts the agent sample with `env` (and node options), posts one message without a token,
   * stops it (SIGTERM: the tracking client delivers what it has, then the process exits) and
   * resolves with the HTTP status and what reached the channel and the endpoint from that conversation.
   */
  async function withoutToken(env: Record<string, string>, nodeArgs: string[] = []): Promise<{ status: number; replies: number; recorded: number }> {
    const port = await freePort();
    const conversation = `auth-conv-${port}`;
    const agent = startScript('samples/agent/index.mjs', {
      nodeArgs: [...SOURCE, ...nodeArgs],
      env: { ...env, TRACKING_API_KEY: KEY, TRACKING_BASE_URL: endpoint.url, PORT: String(port) },
      timeoutMs: 30_000,
    });
    let status: number;
    try {
      status = await postUntilUp(`http://127.0.0.1:${port}/api/messages`, { ...message('menu', 'auth-1'), conversation: { id: conversation } }, Date.now() + 20_000);
    } finally {
      process.kill(agent.pid, 'SIGTERM');
      await agent.result;
    }
    const replies = channel.sent.filter((s) => s.activity.conversation?.id === conversation).length;
    const response = await fetch(`${endpoint.url}/api/transcript?conversation=${conversation}`);
    const recorded = response.status === 404 ? 0 : ((await response.json()) as { entries: unknown[] }).entries.length;
    return { status, replies, recorded };
  }

  it('with the settings of samples/agent/.env.example filled in, refuses a request without a token (401): no turn, no reply, no record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-env-'));
    try {
      // The file as a user fills it in, loaded the way its first lines say (node --env-file).
      const filled = readFileSync('samples/agent/.env.example', 'utf8')
        .replace(/^(connections__serviceConnection__settings__clientId)=$/m, '$1=00000000-0000-0000-0000-0000000000a1')
        .replace(/^(connections__serviceConnection__settings__clientSecret)=$/m, '$1=not-a-real-secret')
        .replace(/^(connections__serviceConnection__settings__tenantId)=$/m, '$1=00000000-0000-0000-0000-0000000000b2');
      expect(filled).toMatch(/^connections__serviceConnection__settings__clientId=00000000-0000-0000-0000-0000000000a1$/m);
      const file = join(dir, '.env');
      writeFileSync(file, filled);
      // Variables in the environment win over --env-file: clear only those the file does not set.
      const env = Object.fromEntries(Object.entries(ANONYMOUS).filter(([name]) => !new RegExp(`^${name}=`, 'm').test(filled)));
      expect(await withoutToken(env, [`--env-file=${file}`])).toEqual({ status: 401, replies: 0, recorded: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);

  it('with the older clientId and tenantId settings, refuses a request without a token (401)', async () => {
    const env = { ...ANONYMOUS, clientId: '00000000-0000-0000-0000-0000000000a1', tenantId: '00000000-0000-0000-0000-0000000000b2' };
    expect(await withoutToken(env)).toEqual({ status: 401, replies: 0, recorded: 0 });
  }, 40_000);

  it('without a client id, takes the same request (200): the 401s above come from the settings', async () => {
    const result = await withoutToken(ANONYMOUS);
    expect(result.status).toBe(200);
    expect(result.replies).toBe(1);
    expect(result.recorded).toBe(2);
  }, 40_000);
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
