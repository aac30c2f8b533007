// Hosts an Agents SDK agent the way the SDK's express host (startServer) does: express.json, then
// createAgentRequestHandler (JWT check from the environment's auth settings, then
// adapter.process(req, res, (context) => agent.run(context))). Unlike startServer it can listen on
// port 0 and be closed, which the demo and the tests need.
import express from 'express';
import { createAgentRequestHandler } from '@microsoft/agents-hosting-express';

/**
 * Starts an HTTP server for `agent` (an AgentApplication): POST {path} runs its turn. `port` 0
 * picks a free port. `authConfig` is the SDK's AuthConfiguration; by default it is read from the
 * environment (no client id: anonymous, for local use only).
 * Resolves with the server, its address and a `close()`.
 */
export async function startAgentServer({ agent, port = 3978, host = '127.0.0.1', path = '/api/messages', authConfig }) {
  const app = express();
  app.use(express.json());
  const handle = createAgentRequestHandler(agent, authConfig);
  app.post(path, async (req, res, next) => {
    try {
      await handle(req, res);
    } catch (error) {
      next(error);
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
