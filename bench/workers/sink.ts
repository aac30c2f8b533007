/**
 * The loopback tracking sink of measurements 1–3 and 5, in its own process so its CPU is not
 * counted in the sender's. It answers every POST with 200 `{}` (after 200 ms when the path starts
 * with `/slow/`, after N ms when it starts with `/delay/N/`: an endpoint that far away) and counts
 * records by the unique marker in their `text` (`q<phase>.<seq>` for a user's message,
 * `a<phase>.<seq>` for the bot's echo), so a lost or duplicated record shows.
 *
 * A sender that replays the same records every round has the parent set the phase they count
 * in (IPC command `phase`) instead.
 *
 * Sockets: per phase, the most connections open at once that carried a record of the phase. A
 * keep-alive socket opened in an earlier phase counts once it carries one, so a sender that
 * reuses its sockets round after round is counted as fully as one that opens new ones.
 *
 * Control: `GET /_bench/wait?phase=P&n=K&idleMs=T` answers once K distinct records of phase P
 * arrived (with `&answered=1`: and every one of them was answered, its delay included), or once
 * none arrived for T ms (records were lost), with `{ unique, total, lastAt, lastAnsweredAt, peakSockets }`;
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
  /** Connections open now that carried a record of the phase (a keep-alive socket opened earlier counts once it carries one). */
  sockets: number;
  /** The most of them open at once: the sockets the sender used. */
  peakSockets: number;
  /** When the last record of the phase arrived (ms since the epoch, sub-ms precision). */
  lastAt: number;
  /** Records of the phase answered, and when the last was (its delay included): the sender has its last answer then. */
  answered: number;
  lastAnsweredAt: number;
  waiters: Waiter[];
}

interface Waiter {
  n: number;
  /** Also wait until every record of the phase that arrived has been answered. */
  answered: boolean;
  done(): void;
  arrived(): void;
}

const phases = new Map<number, Phase>();
/** The phase whose records each open connection carried last. */
const socketPhase = new WeakMap<object, Phase>();
let unmarked = 0;
/** When set (IPC command `phase`), every record counts in this phase, whatever its marker's phase. */
let currentPhase: number | undefined;

function phase(id: number): Phase {
  let p = phases.get(id);
  if (p === undefined) {
    p = { unique: new Set(), total: 0, sockets: 0, peakSockets: 0, lastAt: 0, answered: 0, lastAnsweredAt: 0, waiters: [] };
    phases.set(id, p);
  }
  return p;
}

/** Counts a record; returns its phase (`undefined` for a body without a marker). */
function count(body: string, socket: object): Phase | undefined {
  const m = MARKER.exec(body);
  if (m === null) {
    unmarked++;
    return undefined;
  }
  const marker = m[1];
  const p = phase(currentPhase ?? Number(marker.slice(1, marker.indexOf('.'))));
  const before = socketPhase.get(socket);
  if (before !== p) {
    if (before !== undefined) before.sockets--;
    socketPhase.set(socket, p);
    if (++p.sockets > p.peakSockets) p.peakSockets = p.sockets;
  }
  p.total++;
  p.unique.add(marker);
  p.lastAt = performance.timeOrigin + performance.now();
  for (const w of p.waiters) w.arrived();
  wake(p);
  return p;
}

function isDone(p: Phase, w: Pick<Waiter, 'n' | 'answered'>): boolean {
  return p.unique.size >= w.n && (!w.answered || p.answered >= p.total);
}

/** Answers the waiters of `p` whose condition holds. */
function wake(p: Phase): void {
  if (p.waiters.length === 0) return;
  const ready = p.waiters.filter((w) => isDone(p, w));
  if (ready.length === 0) return;
  p.waiters = p.waiters.filter((w) => !ready.includes(w));
  for (const w of ready) w.done();
}

function report(id: number) {
  const p = phase(id);
  return { unique: p.unique.size, total: p.total, lastAt: p.lastAt, lastAnsweredAt: p.lastAnsweredAt, unmarked, peakSockets: p.peakSockets };
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
      const answered = q.get('answered') === '1';
      if (isDone(p, { n, answered })) return answer();
      const idleMs = Number(q.get('idleMs') ?? 5_000);
      const giveUp = () => {
        p.waiters = p.waiters.filter((w) => w !== waiter);
        answer();
      };
      const timer = setTimeout(giveUp, idleMs);
      const waiter: Waiter = {
        n,
        answered,
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
    const p = count(body, req.socket);
    const respond = () => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': OK.length }).end(OK);
      if (p === undefined) return;
      p.answered++;
      p.lastAnsweredAt = performance.timeOrigin + performance.now();
      wake(p);
    };
    if (delayMs > 0) setTimeout(respond, delayMs);
    else respond();
  });
  req.on('error', () => undefined);
});
server.on('clientError', (_error, socket) => socket.destroy());
server.on('connection', (socket) => {
  socket.on('close', () => {
    const p = socketPhase.get(socket);
    if (p !== undefined) p.sockets--;
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  serve({
    url: () => `http://127.0.0.1:${port}`,
    count: (args: { phase: number }) => report(args.phase),
    forget: (args: { phase: number }) => void phases.delete(args.phase),
    phase: (args: { phase: number | null }) => {
      currentPhase = args.phase ?? undefined;
    },
  });
});
