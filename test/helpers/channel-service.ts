/**
 * A fake Bot Framework channel service (the Bot Connector a bot replies through) on 127.0.0.1:
 * it answers `POST /v3/conversations/{id}/activities[/{replyToId}]` with `{"id": "…"}` and records
 * what the bot sent. Point an incoming activity's `serviceUrl` at `url`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentActivity {
  conversationId: string;
  /** Set for a reply (`replyToActivity`); undefined for `sendToConversation` (proactive messages). */
  replyToId: string | undefined;
  /** The id the service answered with. */
  id: string;
  activity: any;
}

export interface ChannelService {
  /** The serviceUrl to put in incoming activities, e.g. http://127.0.0.1:40123/ */
  url: string;
  /** Activities the bot sent, in arrival order. */
  sent: SentActivity[];
  close(): Promise<void>;
}

/** Starts the fake channel service; ids it hands out are `${idPrefix}${n}`, n from 1. */
export async function startChannelService(idPrefix = 'channel-msg-'): Promise<ChannelService> {
  const sent: SentActivity[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const match = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/?]+))?/.exec(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || match === null) {
        res.end('{}');
        return;
      }
      let activity: unknown;
      try {
        activity = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        activity = undefined;
      }
      const id = `${idPrefix}${sent.length + 1}`;
      sent.push({ conversationId: decodeURIComponent(match[1]), replyToId: match[2] === undefined ? undefined : decodeURIComponent(match[2]), id, activity });
      res.end(JSON.stringify({ id }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    sent,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
