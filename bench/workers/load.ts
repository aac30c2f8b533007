/**
 * Measurement 4, the load: POSTs tracking requests over keep-alive sockets, `concurrency` at a
 * time, for `durationMs`, from its own process. Counts answers by status.
 */
import http from 'node:http';
import { serve } from '../lib/worker.js';

export interface LoadArgs {
  baseUrl: string;
  /** Path with query (`/track?...`) and JSON body of each request, used in turn. */
  requests: { path: string; body: string }[];
  concurrency: number;
  durationMs: number;
}

export interface LoadResult {
  requests: number;
  ok: number;
  statuses: Record<string, number>;
  errors: number;
  ms: number;
}

function run(args: LoadArgs): Promise<LoadResult> {
  const { hostname, port } = new URL(args.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: args.concurrency });
  const statuses: Record<string, number> = {};
  let requests = 0;
  let ok = 0;
  let errors = 0;
  let next = 0;
  const start = performance.now();
  const deadline = start + args.durationMs;
  const post = (request: { path: string; body: string }) =>
    new Promise<void>((resolve) => {
      const req = http.request({
        hostname,
        port,
        path: request.path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body) },
      });
      req.on('response', (res) => {
        res.on('data', () => undefined);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status >= 200 && status < 300) ok++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(request.body);
    });
  const lane = async () => {
    while (performance.now() < deadline) {
      requests++;
      await post(args.requests[next++ % args.requests.length]);
    }
  };
  return Promise.all(Array.from({ length: args.concurrency }, lane)).then(() => {
    agent.destroy();
    return { requests, ok, statuses, errors, ms: performance.now() - start };
  });
}

serve({ run });
