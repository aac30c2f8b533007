/**
 * The request log and the metrics watch each response through one `finish` listener that the
 * router adds, not one each: a response to the endpoint has one more `finish` listener than Node's
 * own, and both still count it (a refusal logged and counted, a request timed).
 */
import http, { type Server } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { KeyPolicy } from '../../src/http/auth.js';
import { EndpointMetrics } from '../../src/http/metrics.js';
import { RequestLog } from '../../src/http/request-log.js';
import type { EndpointContext, Route } from '../../src/http/router.js';
import { closeServer, createEndpointServer, listen } from '../../src/http/server.js';
import { resolveOptions } from '../../src/options.js';
import type { RecordStore } from '../../src/store/store.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => closeServer(server, 200)));
});

/** How many `finish` listeners the response has when its handler runs, as its body. */
function listeners(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.end(String(res.listenerCount('finish')));
}

it('adds one finish listener per response for the request log and the metrics, and both count the response', async () => {
  // Node's own listeners on a response, on a plain server.
  const plain = http.createServer(listeners);
  servers.push(plain);
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  const nodeOwn = Number(await (await fetch(`http://127.0.0.1:${(plain.address() as { port: number }).port}/`)).text());

  const log: string[] = [];
  const options = resolveOptions({ port: 0, database: false, log: (line) => log.push(line) });
  const metrics = new EndpointMetrics({ lag: async () => ({ behindRecords: 0, behindSeconds: 0 }), liveClients: () => 0, nameOf: () => undefined });
  const context: EndpointContext = { options, store: {} as RecordStore, keys: new KeyPolicy([], true), live: undefined as never, requests: new RequestLog((line) => log.push(line), 0), metrics };
  const server = createEndpointServer(new Map<string, Route>([['/listeners', { methods: { GET: listeners } }]]), context);
  servers.push(server);
  const base = `http://127.0.0.1:${await listen(server, options)}`;

  expect(Number(await (await fetch(`${base}/listeners`)).text())).toBe(nodeOwn + 1);

  // Both still see every response: a refusal is logged and counted, and each request is timed.
  expect((await fetch(`${base}/nowhere`)).status).toBe(404);
  await expect.poll(() => log.filter((line) => line.startsWith('tracking endpoint: refused GET /nowhere with 404 from 127.0.0.1'))).toHaveLength(1);
  const text = await metrics.registry.metrics();
  expect(text).toMatch(/^tracking_requests_refused_total\{status="404",reason="not_found",bot=""\} 1$/m);
  expect(text).toMatch(/^tracking_request_duration_seconds_count\{route="\/listeners",method="GET",status_class="2xx"\} 1$/m);
  expect(text).toMatch(/^tracking_request_duration_seconds_count\{route="other",method="GET",status_class="4xx"\} 1$/m);
});
