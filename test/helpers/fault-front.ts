/**
 * A fault-injecting front for a real tracking endpoint: a node:http server on 127.0.0.1 that
 * answers each request as its current plan says — forward it to the endpoint, answer a status
 * itself (500/503 bursts, 429 with Retry-After), reset the connection before or after the
 * endpoint stored the record, answer slower than the client waits — or is down altogether
 * (connections refused, or reset as soon as they open). Whatever is forwarded is accepted or
 * refused by the real endpoint. Every request is logged with what happened to it, so a test can
 * tell apart a record the endpoint never saw from one it stored but whose answer was lost.
 */
import http from 'node:http';
import type net from 'node:net';

/** What the front does with one request. */
export type Fault =
  /** Forward to the endpoint and pass its answer back. */
  | { kind: 'forward' }
  /** Answer this status without forwarding. `echo` puts the request's URL and body in the answer, as some proxies' error pages do. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; echo?: boolean }
  /** Reset the connection: before forwarding (the endpoint never sees it) or after the endpoint stored it (the answer is lost). */
  | { kind: 'reset'; when: 'before-forward' | 'after-store' }
  /** Hold the request `holdMs`: before forwarding it, or after the endpoint stored it (before answering). */
  | { kind: 'slow'; holdMs: number; when: 'before-forward' | 'after-store' };

/** How the front answers from now on: a fault per request, or down altogether. */
export type Plan = ((request: FrontRequest) => Fault) | 'refuse-connections' | 'reset-connections';

export interface FrontRequest {
  /** 0-based, in arrival order (requests on refused or reset connections never arrive). */
  index: number;
  /** `performance.now()` when the whole request had arrived. */
  at: number;
  url: string;
  rawBody: string;
  /** The parsed JSON body, or undefined. */
  body: unknown;
  fault: Fault;
  /** The endpoint's status when the request was forwarded and answered. */
  endpointStatus?: number;
  /** `performance.now()` when the front wrote its answer (undefined when it wrote none). */
  answeredAt?: number;
  /** The front wrote an answer and the connection was still open to take it. */
  answered: boolean;
  /** The endpoint answered that it had stored the record before, under its Idempotency-Key (`Idempotent-Replayed: true`). */
  replayed?: boolean;
}

export interface FaultFront {
  /** Base URL of the front: give it to the client as `baseUrl`. */
  url: string;
  /** Every request that arrived, in order. */
  requests: FrontRequest[];
  /** Connections refused or reset because the front was down (attempts that never became requests). */
  readonly connectionsCut: number;
  /** Switches the plan from now on (a request already being handled keeps its fault). */
  plan(next: Plan): Promise<void>;
  /** Resolves once no request is being handled (held or forwarded). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const FORWARD: Fault = { kind: 'forward' };

/** Starts a front on 127.0.0.1 (a free port) for the endpoint at `target` (its base URL). */
export async function startFaultFront(target: string, initial: Plan = () => FORWARD): Promise<FaultFront> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const requests: FrontRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let current: Plan = initial;
  let connectionsCut = 0;
  let busy = 0;
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  const done = () => {
    if (--busy === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  };
  const hold = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  function forward(request: FrontRequest, headers: http.IncomingHttpHeaders): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string } | undefined> {
    return new Promise((resolve) => {
      const out = http.request(
        {
          host: upstream.hostname, port: upstream.port, path: request.url, method: 'POST', agent,
          // The record's Idempotency-Key goes through, as a proxy passes a request's headers on.
          headers: { 'content-type': headers['content-type'] ?? 'application/json', 'content-length': Buffer.byteLength(request.rawBody), ...(headers['idempotency-key'] === undefined ? {} : { 'idempotency-key': headers['idempotency-key'] }) },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          res.on('error', () => resolve(undefined));
        },
      );
      out.on('error', () => resolve(undefined));
      out.end(request.rawBody);
    });
  }

  function answer(request: FrontRequest, res: http.ServerResponse, status: number, headers: Record<string, string | number>, body: string): void {
    if (res.destroyed || res.socket === null || res.socket.destroyed) return;
    request.answeredAt = performance.now();
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body, () => {
      request.answered = true;
    });
  }

  async function handle(request: FrontRequest, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const { fault } = request;
    const reset = (): void => void req.socket.resetAndDestroy();
    if (fault.kind === 'status') {
      const body = fault.echo ? JSON.stringify({ ok: false, error: `upstream failure for ${request.url}`, request: request.rawBody }) : '{"ok":false}';
      answer(request, res, fault.status, fault.headers ?? {}, body);
      return;
    }
    if (fault.kind === 'reset' && fault.when === 'before-forward') return reset();
    if (fault.kind === 'slow' && fault.when === 'before-forward') await hold(fault.holdMs);
    const forwarded = await forward(request, req.headers);
    if (forwarded === undefined) return reset();
    request.endpointStatus = forwarded.status;
    request.replayed = forwarded.headers['idempotent-replayed'] === 'true';
    if (fault.kind === 'reset') return reset();
    if (fault.kind === 'slow' && fault.when === 'after-store') await hold(fault.holdMs);
    const headers: Record<string, string> = {};
    if (typeof forwarded.headers['retry-after'] === 'string') headers['retry-after'] = forwarded.headers['retry-after'];
    if (request.replayed) headers['idempotent-replayed'] = 'true';
    answer(request, res, forwarded.status, headers, forwarded.body);
  }

  const server = http.createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    busy++;
    const chunks: Buffer[] = [];
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const request: FrontRequest = { index: requests.length, at: performance.now(), url: req.url ?? '/', rawBody, body, fault: FORWARD, answered: false };
      requests.push(request);
      const plan = current;
      request.fault = typeof plan === 'function' ? plan(request) : { kind: 'reset', when: 'before-forward' };
      handle(request, req, res).then(done, done);
    });
    req.on('close', () => {
      if (!req.complete) done();
    });
  });
  server.on('connection', (socket: net.Socket) => {
    socket.on('error', () => undefined);
    if (current === 'reset-connections') {
      connectionsCut++;
      socket.resetAndDestroy();
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  await listen(0);
  const { port } = server.address() as net.AddressInfo;
  let listening = true;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get connectionsCut() {
      return connectionsCut;
    },
    async plan(next) {
      const wasDown = current === 'refuse-connections';
      current = next;
      if (next === 'refuse-connections' && listening) {
        // Down: stop listening (new connections are refused) and cut every open one.
        listening = false;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await stopped;
      } else if (next === 'reset-connections') {
        server.closeAllConnections();
      } else if (wasDown && !closed) {
        await listen(port);
        listening = true;
      }
    },
    idle() {
      return busy === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      agent.destroy();
      if (!listening) return;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
    },
  };
}
