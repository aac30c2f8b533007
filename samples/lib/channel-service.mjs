// A stand-in for the Bot Framework channel service (the Bot Connector a bot replies through), on
// loopback: it answers `POST /v3/conversations/{id}/activities[/{replyToId}]` with `{"id": "…"}`
// and keeps what the bot sent. Point an incoming activity's `serviceUrl` at its `url`.
import http from 'node:http';

/** Starts the channel service on 127.0.0.1 (a free port); ids it hands out are `${idPrefix}${n}`, n from 1. */
export async function startChannelService(idPrefix = 'channel-msg-') {
  const sent = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const match = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/?]+))?/.exec(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || match === null) {
        res.end('{}');
        return;
      }
      let activity;
      try {
        activity = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        activity = undefined;
      }
      const id = `${idPrefix}${sent.length + 1}`;
      sent.push({
        conversationId: decodeURIComponent(match[1]),
        replyToId: match[2] === undefined ? undefined : decodeURIComponent(match[2]),
        id,
        activity,
      });
      res.end(JSON.stringify({ id }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    sent,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
