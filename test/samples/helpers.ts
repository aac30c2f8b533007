/**
 * For the sample tests: activities as a channel sends them, posting to a bot that is still
 * starting, reading what the endpoint recorded, and a free port for hosts that cannot listen on 0.
 */
import net from 'node:net';
import type { TrackingEndpoint, TranscriptEntry } from 'botbuilder-conversation-analytics-endpoint';
import type { ScriptOptions } from '../helpers/run-script.js';

/** Node options that make a sample's `botbuilder-conversation-analytics` imports load src/ (no build needed). */
export const SOURCE = ['--import', './test/faults/fixtures/use-source.mjs'];

/** No Bot Framework or Agents SDK credentials, whatever the environment running the tests has: each sample runs anonymously. */
export const ANONYMOUS: Record<string, string> = {
  MicrosoftAppId: '', MicrosoftAppPassword: '', MicrosoftAppType: '', MicrosoftAppTenantId: '',
  clientId: '', clientSecret: '', tenantId: '',
  connections__serviceConnection__settings__clientId: '',
};

/** A free TCP port on this machine (the Agents SDK's startServer takes its port from PORT and cannot listen on 0 and say where). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A message activity from a user, as a channel posts it to the bot. */
export function message(serviceUrl: string, text: string, id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'message', id, channelId: 'msteams', serviceUrl, text, timestamp: new Date().toISOString(),
    from: { id: 'sample-user', name: 'Sam' }, recipient: { id: 'agent', name: 'Shop' }, conversation: { id: 'sample-conv' },
    ...fields,
  };
}

/** POSTs `body` as JSON, retrying while nothing listens yet (until `deadline`); resolves with the HTTP status. */
export async function postUntilUp(url: string, body: Record<string, unknown>, deadline: number, headers: Record<string, string> = {}): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      await response.arrayBuffer();
      return response.status;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Resolves with the first match of `pattern` in what a script prints, as it prints it (for the address a sample listens on). */
export function waitForOutput(pattern: RegExp, timeoutMs: number): { onOutput: NonNullable<ScriptOptions['onOutput']>; match: Promise<RegExpMatchArray> } {
  let printed = '';
  let found: (m: RegExpMatchArray) => void = () => undefined;
  const match = new Promise<RegExpMatchArray>((resolve, reject) => {
    found = resolve;
    setTimeout(() => reject(new Error(`nothing matching ${pattern} was printed within ${timeoutMs} ms; printed:\n${printed}`)), timeoutMs).unref();
  });
  return {
    onOutput: (_stream, text) => {
      printed += text;
      const m = printed.match(pattern);
      if (m) found(m);
    },
    match,
  };
}

/** The transcript the endpoint keeps for one user. */
export async function transcript(endpoint: TrackingEndpoint, user: string): Promise<TranscriptEntry[]> {
  const response = await fetch(`${endpoint.url}/api/transcript?user=${encodeURIComponent(user)}`);
  if (response.status === 404) return [];
  const { entries } = (await response.json()) as { entries: TranscriptEntry[] };
  return entries;
}

/** One stored record as the endpoint received it. */
export async function storedRecord(endpoint: TrackingEndpoint, seq: number): Promise<{ platform: string | null; type: string; body: any }> {
  const response = await fetch(`${endpoint.url}/api/record?seq=${seq}`);
  return ((await response.json()) as { record: { platform: string | null; type: string; body: any } }).record;
}
