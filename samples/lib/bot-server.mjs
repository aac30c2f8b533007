// A tiny HTTP host for a Bot Framework bot on Node's own http module: no restify or express.
// POST /api/messages is handed to the adapter; everything else gets 404.
import http from 'node:http';
import { CloudAdapter, ConfigurationBotFrameworkAuthentication } from 'botbuilder';

/** Reads a request's body as JSON (an empty or invalid body gives undefined). */
function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** The response object CloudAdapter.process expects (restify/express-like), on top of Node's. */
function adapterResponse(res) {
  let body;
  return {
    socket: res.socket,
    header(name, value) {
      res.setHeader(name, value);
    },
    status(code) {
      res.statusCode = code;
    },
    send(value) {
      body = value;
    },
    end() {
      if (res.writableEnded) return;
      if (body === undefined) return res.end();
      const isText = typeof body === 'string';
      res.setHeader('content-type', isText ? 'text/plain; charset=utf-8' : 'application/json');
      res.end(isText ? body : JSON.stringify(body));
    },
  };
}

/**
 * Starts an HTTP server for a bot: POST {path} runs `bot.run(context)` through `adapter.process`.
 * `port` 0 picks a free port. Resolves with the server, its address and a `close()`.
 */
export async function startBotServer({ adapter, bot, port = 3978, host = '127.0.0.1', path = '/api/messages' }) {
  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== path) {
      res.statusCode = 404;
      res.end();
      return;
    }
    try {
      const request = { method: req.method, headers: req.headers, body: await readJson(req) };
      await adapter.process(request, adapterResponse(res), (context) => bot.run(context));
    } catch (error) {
      console.error(error);
      if (!res.writableEnded) {
        res.statusCode = 500;
        res.end();
      }
    }
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return {
    server,
    url: `http://${host}:${address.port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A CloudAdapter turn-error handler for the samples: logs the error and tells the user. */
export function onTurnError(adapter) {
  adapter.onTurnError = async (context, error) => {
    console.error('[bot] unhandled error:', error);
    await context.sendActivity('Sorry, something went wrong.');
  };
}

/**
 * A CloudAdapter for the samples, with `onTurnError` set. It reads MicrosoftAppId and
 * MicrosoftAppPassword from the environment; left empty, Bot Framework authentication is skipped,
 * which is fine for local use (the Emulator, the demo) only.
 */
export function createCloudAdapter(env = process.env) {
  const adapter = new CloudAdapter(
    new ConfigurationBotFrameworkAuthentication({ MicrosoftAppId: env.MicrosoftAppId ?? '', MicrosoftAppPassword: env.MicrosoftAppPassword ?? '' }),
  );
  onTurnError(adapter);
  return adapter;
}

/**
 * Shuts a sample down cleanly on SIGINT/SIGTERM: first the bot stops taking turns, then the
 * tracking client delivers what the turns logged, then the process exits.
 */
export function shutDownOnSignals(botServer, tracking) {
  const shutdown = async () => {
    await botServer.close();
    await tracking.client.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
