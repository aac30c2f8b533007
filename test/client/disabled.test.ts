/**
 * `enabled: false` (or TRACKING_ENABLED=false): a client for tests and local runs that records
 * nothing, needs no key or URL, says so once, and never touches the network.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter } from 'botbuilder';
import { TrackingClient, TrackingMiddleware, type Logger } from '../../src/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

let sink: Sink;
beforeEach(async () => {
  sink = await startSink();
});
afterEach(async () => {
  await sink.close();
});

function capturingLogger(lines: string[]): Logger {
  const log = (level: string) => (_obj: unknown, msg?: string) => void lines.push(`${level}: ${msg ?? ''}`);
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

describe('a disabled client', () => {
  it('needs no key or URL, resolves every log call as skipped, says so once, and sends nothing', async () => {
    const lines: string[] = [];
    const client = new TrackingClient({ enabled: false, env: {}, logger: capturingLogger(lines) });
    await expect(client.sms.logIncoming({ text: 'hi', userId: 'u' })).resolves.toEqual({ status: 'skipped', reason: 'disabled' });
    await expect(client.logEvent({ type: 'customEvent', name: 'x', userId: 'u' })).resolves.toEqual({ status: 'skipped', reason: 'disabled' });
    // Even a record that breaks the spec: nothing is checked, nothing is sent.
    await expect(client.universal.logIncoming({} as never)).resolves.toMatchObject({ reason: 'disabled' });
    await client.flush();
    await client.close();
    expect(lines).toEqual(['info: Tracking is off (enabled: false or TRACKING_ENABLED=false): nothing is recorded or sent.']);
    expect(client.stats()).toMatchObject({ delivered: 0, failed: 0, dropped: 0, queued: 0 });
  });

  it('is what TRACKING_ENABLED=false (or 0, no, off) gives, even with a key and URL set', async () => {
    for (const value of ['false', '0', 'NO', ' off ']) {
      const client = new TrackingClient({ env: { TRACKING_ENABLED: value, TRACKING_API_KEY: 'k-1', TRACKING_BASE_URL: sink.url }, logger: false });
      await expect(client.sms.logIncoming({ text: 'hi', userId: 'u' })).resolves.toMatchObject({ reason: 'disabled' });
      await client.close();
    }
    const on = new TrackingClient({ env: { TRACKING_ENABLED: 'true', TRACKING_API_KEY: 'k-1', TRACKING_BASE_URL: sink.url }, logger: false });
    await expect(on.sms.logIncoming({ text: 'hi', userId: 'u' })).resolves.toMatchObject({ status: 'delivered' });
    await on.close();
    expect(sink.requests).toHaveLength(1);
  });

  it('lets a bot with the middleware run its turns, recording nothing', async () => {
    const client = new TrackingClient({ enabled: false, baseUrl: sink.url, apiKey: 'k-1', logger: false });
    const adapter = new TestAdapter(async (context) => void (await context.sendActivity('pong')));
    adapter.use(new TrackingMiddleware({ client }));
    await adapter.send('ping').assertReply('pong');
    await client.flush();
    await client.close();
    expect(sink.requests).toEqual([]);
  });
});
