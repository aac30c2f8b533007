// The samples' HTTP host for a Bot Framework (botbuilder) bot, on express, the way botbuilder's
// own samples host one: express.json, then POST /api/messages handed to adapter.process.
import express from 'express';
import { CloudAdapter, ConfigurationBotFrameworkAuthentication } from 'botbuilder';

/**
 * Starts an HTTP server for a bot: POST {path} runs `bot.run(context)` through `adapter.process`.
 * `port` 0 picks a free port. Resolves with the server, its address and a `close()`.
 */
export async function startBotServer({ adapter, bot, port = 3978, host = '127.0.0.1', path = '/api/messages' }) {
  const app = express();
  app.use(express.json());
  app.post(path, async (req, res) => {
    try {
      await adapter.process(req, res, (context) => bot.run(context));
    } catch (error) {
      console.error(error);
      if (!res.headersSent) res.status(500).end();
    }
  });
  const server = await new Promise((resolve, reject) => {
    const listening = app.listen(port, host, (error) => (error ? reject(error) : resolve(listening)));
  });
  return {
    server,
    url: `http://${host}:${server.address().port}${path}`,
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
 * A CloudAdapter for the samples, with `onTurnError` set, authenticated from the environment the
 * way botbuilder's samples are: MicrosoftAppType (MultiTenant, SingleTenant or
 * UserAssignedMSI), MicrosoftAppId, MicrosoftAppPassword (or a certificate) and
 * MicrosoftAppTenantId. With no MicrosoftAppId, Bot Framework authentication is skipped, which is
 * fine for local use (the Emulator) only.
 */
export function createCloudAdapter(env = process.env) {
  const adapter = new CloudAdapter(new ConfigurationBotFrameworkAuthentication(env));
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
