/**
 * The bare `node:http` sender: the practical limit every sender is compared with. It POSTs
 * ready-made requests over keep-alive sockets and does nothing else.
 */
import http from 'node:http';
import type { CapturedRequest } from './capture.js';

interface Target {
  hostname: string;
  port: number;
  path: string;
}

/** POSTs `requests`, `concurrency` at a time, over keep-alive sockets; resolves when all are answered. */
export function bareLoop(requests: CapturedRequest[], concurrency: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const targets = new Map<string, Target>();
  for (const { url } of requests) {
    if (!targets.has(url)) {
      const u = new URL(url);
      targets.set(url, { hostname: u.hostname, port: Number(u.port), path: `${u.pathname}${u.search}` });
    }
  }
  let next = 0;
  const post = (request: CapturedRequest) =>
    new Promise<void>((resolve, reject) => {
      const t = targets.get(request.url)!;
      const req = http.request({
        hostname: t.hostname,
        port: t.port,
        path: t.path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body) },
      });
      req.on('response', (res) => {
        res.on('data', () => undefined);
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(request.body);
    });
  const lane = async () => {
    while (next < requests.length) await post(requests[next++]);
  };
  return Promise.all(Array.from({ length: concurrency }, lane)).then(() => agent.destroy());
}

