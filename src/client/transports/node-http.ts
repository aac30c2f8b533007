/**
 * The default transport: Node's own http/https with keep-alive. No dependencies, and the
 * cheapest in CPU per request on Node.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { HOLD_IN_FLIGHT, MAX_RESPONSE_BODY_CHARS, SEND_DIRECT, type DirectRequest, type DirectTransport, type HoldingTransport, type Transport, type TransportRequest, type TransportResponse } from '../transport.js';

/** Options of the default transport. */
export interface NodeHttpTransportOptions {
  /** Most sockets open at once per host. Default 16 (the client passes its `maxConcurrency`, default 256). */
  maxSockets?: number;
  /** Extra options for the keep-alive agents (for example `ca` for a private CA). */
  agentOptions?: https.AgentOptions;
}

const MAX_RESPONSE_BODY_BYTES = 3 * MAX_RESPONSE_BODY_CHARS;

/** What a URL gives every request to it, worked out once. */
interface Target {
  secure: boolean;
  hostname: string;
  port: string;
  path: string;
  /** The `Host` header Node would send: the host, with the port unless it is the protocol's default (`URL.host`). */
  host: string;
  /** The name TLS asks the server for (SNI), as Node works it out: the host name, none for an IP address. */
  servername: string;
}

/**
 * Request headers as a raw list (name, value, name, value…), as `http.request` takes them, for a
 * `TransportRequest`'s headers: one entry per name whatever its case (the last value wins, at the
 * place the name first appeared, as `setHeader` does), without `content-length` (the transport
 * sets it) and with `Host` unless the caller gave one.
 */
function rawHeaders(headers: Record<string, string>, host: string): string[] {
  const byName = new Map<string, [string, string]>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'content-length') continue;
    const at = byName.get(lower);
    if (at === undefined) byName.set(lower, [name, headers[name]]);
    else {
      at[0] = name;
      at[1] = headers[name];
    }
  }
  const raw: string[] = [];
  for (const [name, value] of byName.values()) raw.push(name, value);
  if (!byName.has('host')) raw.push('Host', host);
  return raw;
}

function timeoutError(ms: number): Error {
  const error = new Error(`tracking request timed out after ${ms} ms`) as Error & { code: string };
  error.code = 'ETIMEDOUT';
  return error;
}

type Done = (error: Error | undefined, response: TransportResponse | undefined) => void;

/** Where a request and its response keep their exchange (below), for the event handlers shared by every request. */
const EXCHANGE = Symbol('exchange');

/** A request or response of ours: it carries its exchange. */
type Carrier = { [EXCHANGE]?: Exchange };

/**
 * One request and its answer. The event handlers are functions shared by every request (they find
 * the exchange through the request), so a request costs no closures of its own.
 */
class Exchange {
  settled = false;
  /** Raw chunks of the response body, decoded once at the end (most answers have an empty or tiny body). */
  chunks: Buffer[] | undefined = undefined;
  bytes = 0;
  readonly timer: NodeJS.Timeout;

  constructor(
    readonly req: http.ClientRequest,
    readonly timeoutMs: number,
    private readonly done: Done,
    /** Decode the body of a 2xx answer too (`send()` returns it; the delivery queue only reads the body of a refusal). */
    readonly bodyAlways: boolean,
  ) {
    this.timer = setTimeout(onTimeout, timeoutMs, this);
    // Neither a request's timeout nor its socket keeps the process alive (see `unrefSockets`).
    this.timer.unref();
  }

  finish(error: Error | undefined, response?: TransportResponse): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.chunks = undefined;
    // After the current callback: Node returns a kept-alive socket to its pool on the next tick,
    // and a request sent from `done` should find it there rather than open another connection.
    process.nextTick(this.done, error, response);
  }
}

function exchangeOf(carrier: http.ClientRequest | http.IncomingMessage): Exchange {
  return (carrier as Carrier)[EXCHANGE]!;
}

function onTimeout(exchange: Exchange): void {
  const error = timeoutError(exchange.timeoutMs);
  exchange.req.destroy(error);
  // A request still waiting for a free connection (maxSockets) hears of its destruction only once
  // it is given one: the timeout is reported now, and that later error is ignored (settled).
  exchange.finish(error);
}

function onRequestError(this: http.ClientRequest, error: Error): void {
  exchangeOf(this).finish(error);
}

function onResponse(this: http.ClientRequest, res: http.IncomingMessage): void {
  (res as Carrier)[EXCHANGE] = exchangeOf(this);
  res.on('data', onData);
  res.on('end', onEnd);
  // A response cut off midway is destroyed: 'close' without 'end'. (Node emits a response's 'error'
  // only to a listener; the socket's errors, parse errors included, go to the request's.)
  res.on('close', onClose);
}

/** Whether the exchange needs the body and headers of this answer: always for `send()`, else only for a refusal (2xx bodies are never read). */
function readsAnswer(exchange: Exchange, status: number): boolean {
  return exchange.bodyAlways || status < 200 || status > 299;
}

function onData(this: http.IncomingMessage, chunk: Buffer): void {
  // Enough bytes for MAX_RESPONSE_BODY_CHARS characters, as one UTF-16 character takes at most 3 UTF-8 bytes.
  const exchange = exchangeOf(this);
  // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: only how much of an answer is kept in memory; what is returned is decided in onEnd (a 2xx body only for send()) and cut to MAX_RESPONSE_BODY_CHARS there
  if (exchange.bytes < MAX_RESPONSE_BODY_BYTES && readsAnswer(exchange, this.statusCode ?? 0)) {
    (exchange.chunks ??= []).push(chunk);
    // Stryker disable next-line AssignmentOperator: likewise, memory only
    exchange.bytes += chunk.length;
  }
}

function onEnd(this: http.IncomingMessage): void {
  const exchange = exchangeOf(this);
  const status = this.statusCode ?? 0;
  if (!readsAnswer(exchange, status)) {
    exchange.finish(undefined, { status, retryAfter: undefined, body: '' });
    return;
  }
  const { chunks } = exchange;
  const body = chunks !== undefined ? (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8').slice(0, MAX_RESPONSE_BODY_CHARS) : '';
  exchange.finish(undefined, { status, retryAfter: retryAfterOf(this.rawHeaders), body });
}

/**
 * The Retry-After header of an answer, read from its raw headers: the same value as
 * `headers['retry-after']` (Node keeps the first of duplicates), without Node building the
 * headers object of every answer.
 */
function retryAfterOf(raw: string[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === 11 && name.toLowerCase() === 'retry-after') return raw[i + 1];
  }
  return undefined;
}

function onClose(this: http.IncomingMessage): void {
  const exchange = exchangeOf(this);
  // After 'end' (or the request's error), the exchange is settled and this changes nothing.
  // Stryker disable next-line ConditionalExpression: spares an Error per answer; finish() ignores a second call anyway (the variant that never finishes here is killed by the cut-off answer tests)
  if (!exchange.settled) exchange.finish(Object.assign(new Error('tracking response aborted'), { code: 'ECONNRESET' }));
}

/**
 * Makes an agent's sockets not keep the process alive on their own, in flight too: Node unrefs a
 * kept-alive socket while it is idle and refs it again for each request. A process that has
 * nothing else to do than wait for a tracking request thus reaches `beforeExit`, and the client's
 * exit guard decides how long to wait (`HOLD_IN_FLIGHT`, for up to `closeTimeoutMs`, after which
 * it cuts the request off), not the request timeout. Done where the agent makes or reuses a
 * socket: no cost per request.
 */
function unrefSockets<A extends http.Agent>(agent: A): A {
  const internals = agent as unknown as {
    createConnection(...args: unknown[]): net.Socket | undefined;
    reuseSocket(socket: net.Socket, req: http.ClientRequest): void;
  };
  const create = internals.createConnection;
  internals.createConnection = function (this: unknown, ...args: unknown[]) {
    const socket = create.apply(this, args);
    socket?.unref();
    return socket;
  };
  const reuse = internals.reuseSocket;
  internals.reuseSocket = function (this: unknown, socket: net.Socket, req: http.ClientRequest) {
    reuse.call(this, socket, req);
    socket.unref();
  };
  return agent;
}

/** Keeps the process alive for the requests in flight now: their sockets are unref'd again when they go back to the pool. */
function holdInFlight(agent: http.Agent): void {
  for (const sockets of Object.values(agent.sockets)) for (const socket of sockets ?? []) socket.ref();
}

/**
 * Creates the default transport: one keep-alive agent per protocol, sockets reused across
 * records, sockets that do not keep the process alive on their own (idle or in flight; see
 * `unrefSockets`), and a hard timeout per request. A request's `headers` object is read once and
 * its headers reused while the same object comes again: pass a new object (not the same one
 * changed in place) to send other headers. The client passes one frozen object.
 */
export function createNodeHttpTransport(options: NodeHttpTransportOptions = {}): Transport {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16, ...options.agentOptions };
  const httpAgent = unrefSockets(new http.Agent(agentOptions));
  const httpsAgent = unrefSockets(new https.Agent(agentOptions));
  // The client sends to a handful of URLs; parsing each once saves CPU on every request.
  const targets = new Map<string, Target>();
  // The client passes the same headers object with every request: its raw list is made once.
  let lastHeaders: { headers: Record<string, string>; host: string; raw: string[] } | undefined;

  function target(url: string): Target {
    let t = targets.get(url);
    if (t === undefined) {
      const u = new URL(url);
      const hostname = u.hostname.replace(/^\[|\]$/g, '');
      t = { secure: u.protocol === 'https:', hostname, port: u.port, path: `${u.pathname}${u.search}`, host: u.host, servername: net.isIP(hostname) === 0 ? hostname : '' };
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a cache of parsed URLs; cleared sooner, later or never, every request goes to the same place (it bounds memory for a caller of ever-new URLs)
      if (targets.size > 256) targets.clear();
      targets.set(url, t);
    }
    return t;
  }

  /** The headers of one request: the caller's (as a raw list, made once for the same headers object and host), its idempotency key if it comes apart, then its length. */
  function headersOf(request: DirectRequest, t: Target): string[] {
    if (lastHeaders === undefined || lastHeaders.headers !== request.headers || lastHeaders.host !== t.host) {
      lastHeaders = { headers: request.headers, host: t.host, raw: rawHeaders(request.headers, t.host) };
    }
    const raw = lastHeaders.raw.slice();
    const { body, idempotencyKey } = request;
    if (idempotencyKey !== undefined) raw.push('Idempotency-Key', idempotencyKey);
    raw.push('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
    return raw;
  }

  /** Sends one request; `done` is called once, on a later tick, with the response or with the error. */
  function sendDirect(request: DirectRequest, done: Done, bodyAlways = false): void {
    const t = target(request.url);
    const req = (t.secure ? https : http).request({
      hostname: t.hostname,
      port: t.port,
      path: t.path,
      method: 'POST',
      headers: headersOf(request, t),
      servername: t.servername,
      agent: t.secure ? httpsAgent : httpAgent,
    });
    (req as Carrier)[EXCHANGE] = new Exchange(req, request.timeoutMs, done, bodyAlways);
    req.on('error', onRequestError);
    req.on('response', onResponse);
    req.end(request.body);
  }

  const transport: DirectTransport & HoldingTransport = {
    send(request: TransportRequest): Promise<TransportResponse> {
      return new Promise<TransportResponse>((resolve, reject) => {
        try {
          sendDirect(request, (error, response) => (error === undefined ? resolve(response as TransportResponse) : reject(error)), true);
        } catch (error) {
          reject(error);
        }
      });
    },
    [SEND_DIRECT]: (request, done) => sendDirect(request, done),
    [HOLD_IN_FLIGHT]() {
      holdInFlight(httpAgent);
      holdInFlight(httpsAgent);
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
  return transport;
}
