/**
 * The loopback tracking sink of measurements 1–3, in its own process so its CPU is not counted
 * in the sender's. It answers every POST with 200 `{}` (after 200 ms when the path starts with
 * `/slow/`, after N ms when it starts with `/delay/N/`: an endpoint that far away) and counts records by the unique marker in their `text` (`q<phase>.<seq>` for a
 * user's message, `a<phase>.<seq>` for the bot's echo), so a lost or duplicated record shows.
 *
 * A sender that replays the same records every round has the parent set the phase they count
 * in (IPC command `phase`) instead.
 *
 * Control: `GET /_bench/wait?phase=P&n=K&idleMs=T` answers once K distinct records of phase P
 * arrived, or once none arrived for T ms (records were lost), with `{ unique, total, lastAt }`;
 * the IPC command `count` answers at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '../lib/worker.js';

const MARKER = /"text":"([qa]\d+\.\d+)"/;
const SLOW_MS = 200;

interface Phase {
  unique: Set<string>;
  total: number;
  /** Most connections open at once while the phase was current, beyond those open when it began. */
  peakSockets: number;
  baseSockets: number;
  /** When the last record of the phase arrived (ms since the epoch, sub-ms precision). */
  lastAt: number;
  waiters: { n: number; done(): void; arrived(): void }[];
}

const phases = new Map<number, Phase>();
let openSockets = 0;
let unmarked = 0;
/** When set (IPC command `phase`), every record counts in this phase, whatever its marker's phase. */
let currentPhase: number | undefined;

function phase(id: number): Phase {
  let p = phases.get(id);
  if (p === undefined) {
    p = { unique: new Set(), total: 0, peakSockets: 0, baseSockets: openSockets, lastAt: 0, waiters: [] };
    phases.set(id, p);
  }
  return p;
}

function count(body: string): void {
  const m = MARKER.exec(body);
  if (m === null) {
    unmarked++;
    return;
  }
  const marker = m[1];
  const p = phase(currentPhase ?? Number(marker.slice(1, marker.indexOf('.'))));
  p.total++;
  p.unique.add(marker);
  p.lastAt = performance.timeOrigin + performance.now();
  if (p.waiters.length > 0) {
    for (const w of p.waiters) w.arrived();
    const ready = p.waiters.filter((w) => p.unique.size >= w.n);
    if (ready.length > 0) {
      p.waiters = p.waiters.filter((w) => p.unique.size < w.n);
      for (const w of ready) w.done();
    }
  }
}

function report(id: number) {
  const p = phase(id);
  return { unique: p.unique.size, total: p.total, lastAt: p.lastAt, unmarked, peakSockets: p.peakSockets };
}

const OK = '{}';
const server = http.createServer((req, res) => {
  let url = req.url ?? '/';
  const delayed = /^\/delay\/(\d+)(\/.*)$/.exec(url);
  const delayMs = delayed === null ? (url.startsWith('/slow/') ? SLOW_MS : 0) : Number(delayed[1]);
  if (delayed !== null) url = delayed[2];
  if (url.startsWith('/_bench/')) {
    const q = new URL(url, 'http://sink').searchParams;
    const id = Number(q.get('phase'));
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report(id)));
    if (url.startsWith('/_bench/wait')) {
      const p = phase(id);
      const n = Number(q.get('n'));
      if (p.unique.size >= n) return answer();
      const idleMs = Number(q.get('idleMs') ?? 5_000);
      const giveUp = () => {
        p.waiters = p.waiters.filter((w) => w !== waiter);
        answer();
      };
      const timer = setTimeout(giveUp, idleMs);
      const waiter = {
        n,
        done: () => (clearTimeout(timer), answer()),
        arrived: () => timer.refresh(),
      };
      p.waiters.push(waiter);
      return;
    }
    return answer();
  }
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    count(body);
    const respond = () => {
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json', 'content-length': OK.length }).end(OK);
    };
    if (delayMs > 0) setTimeout(respond, delayMs);
    else respond();
  });
  req.on('error', () => undefined);
});
server.on('clientError', (_error, socket) => socket.destroy());
server.on('connection', (socket) => {
  openSockets++;
  if (currentPhase !== undefined) {
    const p = phase(currentPhase);
    p.peakSockets = Math.max(p.peakSockets, openSockets - p.baseSockets);
  }
  socket.on('close', () => openSockets--);
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  serve({
    url: () => `http://127.0.0.1:${port}`,
    count: (args: { phase: number }) => report(args.phase),
    forget: (args: { phase: number }) => void phases.delete(args.phase),
    phase: (args: { phase: number | null }) => {
      currentPhase = args.phase ?? undefined;
      if (currentPhase !== undefined) phase(currentPhase).baseSockets = openSockets;
    },
  });
});
