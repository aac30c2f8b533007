/**
 * A flaky tracking endpoint on 127.0.0.1: a node:http server that answers each request by a fault
 * mix drawn from a seeded generator (so a run can be repeated): HTTP 500, 503, 429 with
 * `Retry-After`, a connection reset before answering, a slow answer, or 200. It can also go down
 * (connections refused: it stops listening) and come back on the same port. It keeps which records
 * it acknowledged (a 2xx that reached the client), by the `text` of their body, so a test can tell
 * what was delivered from what was only tried.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Shares of requests answered with each fault (the rest: 200 at once). */
export interface FaultMix {
  status500?: number;
  status503?: number;
  /** 429 with `Retry-After: 1`. */
  status429?: number;
  reset?: number;
  /** A 200 after `slowMs`. */
  slow?: number;
  slowMs?: number;
}

/** The issue's mix: 12% HTTP 500, 4% 503, 3% 429 (Retry-After: 1), 4% connection resets, 5% slow (300 ms) answers. */
export const ISSUE_MIX: FaultMix = { status500: 0.12, status503: 0.04, status429: 0.03, reset: 0.04, slow: 0.05, slowMs: 300 };

export type Fault = 'ok' | '500' | '503' | '429' | 'reset' | 'slow';

export interface FlakyEndpoint {
  url: string;
  /** Requests that arrived, by what was done with them. */
  readonly answered: Record<'ok' | '500' | '503' | '429' | 'reset' | 'slow', number>;
  /** The `text` of every record acknowledged with 2xx, in order (duplicates kept). */
  readonly acknowledged: string[];
  /** Every request, in arrival order: its record's user and what was done with it. */
  readonly log: { user: string; fault: Fault }[];
  /** When (Date.now()) the last acknowledgement was written. */
  readonly lastAckAt: number;
  /** Stops listening and cuts every connection: attempts are refused until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A small seeded generator (mulberry32): the same seed, the same faults. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function startFlakyEndpoint(mix: FaultMix = {}, seed = 29): Promise<FlakyEndpoint> {
  const random = seeded(seed);
  const answered = { ok: 0, '500': 0, '503': 0, '429': 0, reset: 0, slow: 0 };
  const acknowledged: string[] = [];
  const log: { user: string; fault: Fault }[] = [];
  let lastAckAt = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const ack = (res: http.ServerResponse, text: string) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}', () => {
      acknowledged.push(text);
      lastAckAt = Date.now();
    });
  };
  const server = http.createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let text = '';
      let user = '';
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text?: unknown; userId?: unknown };
        text = String(body.text ?? '');
        user = String(body.userId ?? '');
      } catch {
        text = '';
      }
      const entry = { user, fault: 'ok' as Fault };
      log.push(entry);
      let r = random();
      const pick = (share: number | undefined) => {
        r -= share ?? 0;
        return r < 0;
      };
      if (pick(mix.status500)) {
        answered['500']++;
        entry.fault = '500';
        res.writeHead(500).end('{"ok":false}');
      } else if (pick(mix.status503)) {
        answered['503']++;
        entry.fault = '503';
        res.writeHead(503).end('{"ok":false}');
      } else if (pick(mix.status429)) {
        answered['429']++;
        entry.fault = '429';
        res.writeHead(429, { 'retry-after': '1' }).end('{"ok":false}');
      } else if (pick(mix.reset)) {
        answered.reset++;
        entry.fault = 'reset';
        req.socket.resetAndDestroy();
      } else if (pick(mix.slow)) {
        answered.slow++;
        entry.fault = 'slow';
        const timer = setTimeout(() => {
          timers.delete(timer);
          ack(res, text);
        }, mix.slowMs ?? 300);
        timers.add(timer);
      } else {
        answered.ok++;
        ack(res, text);
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  let listening = true;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    acknowledged,
    log,
    get lastAckAt() {
      return lastAckAt;
    },
    async down() {
      if (!listening) return;
      listening = false;
      await stop();
    },
    async up() {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    async close() {
      if (listening) await stop();
      listening = false;
    },
  };
}
