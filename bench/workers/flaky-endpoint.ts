/**
 * Measurement 7's endpoint: a flaky tracking endpoint on 127.0.0.1, in a process of its own. Each
 * request is answered by a fault mix drawn from a seeded generator (IPC `round`, with the mix and
 * the seed): HTTP 500, 503, 429 with `Retry-After: 1`, a connection reset before answering, a 200
 * after `slowMs`, or a 200 at once. IPC `log` returns, for the round, each request's user and
 * fault in arrival order, and the records acknowledged (distinct `text`s answered 2xx).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { random as seeded } from '../lib/million.js';
import { serve } from '../lib/worker.js';

export type Fault = 'ok' | '500' | '503' | '429' | 'reset' | 'slow';

export interface FaultMix {
  status500?: number;
  status503?: number;
  status429?: number;
  reset?: number;
  slow?: number;
  slowMs?: number;
}

export interface FlakyLog {
  requests: { user: string; fault: Fault }[];
  acknowledged: number;
}

let mix: FaultMix = {};
let random = seeded(1);
let requests: FlakyLog['requests'] = [];
let acknowledged = new Set<string>();

const USER = /"userId":"([^"]*)"/;
const TEXT = /"text":"([^"]*)"/;

const server = http.createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => {
    const entry = { user: USER.exec(body)?.[1] ?? '', fault: 'ok' as Fault };
    requests.push(entry);
    const text = TEXT.exec(body)?.[1] ?? '';
    const ok = () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}', () => {
        acknowledged.add(text);
      });
    let r = random();
    const pick = (share: number | undefined) => (r -= share ?? 0) < 0;
    if (pick(mix.status500)) {
      entry.fault = '500';
      res.writeHead(500).end('{"ok":false}');
    } else if (pick(mix.status503)) {
      entry.fault = '503';
      res.writeHead(503).end('{"ok":false}');
    } else if (pick(mix.status429)) {
      entry.fault = '429';
      res.writeHead(429, { 'retry-after': '1' }).end('{"ok":false}');
    } else if (pick(mix.reset)) {
      entry.fault = 'reset';
      req.socket.resetAndDestroy();
    } else if (pick(mix.slow)) {
      entry.fault = 'slow';
      setTimeout(ok, mix.slowMs ?? 300);
    } else {
      ok();
    }
  });
});
server.on('connection', (socket) => socket.on('error', () => undefined));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

serve({
  url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  round(args: { mix: FaultMix; seed: number }) {
    mix = args.mix;
    random = seeded(args.seed);
    requests = [];
    acknowledged = new Set();
  },
  log: (): FlakyLog => ({ requests, acknowledged: acknowledged.size }),
});
