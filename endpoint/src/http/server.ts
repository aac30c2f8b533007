/**
 * The HTTP server and its hardening: timeouts for slow headers and bodies, keep-alive and idle
 * timeouts, JSON answers to malformed requests, and a close that lets requests in progress finish.
 *
 * The idle timer cuts only a client that is idle: a connection with no request, a body that
 * stopped arriving, an answer the client stopped reading. A request being worked on (a read
 * waiting for the views, a write waiting to be committed) is never cut by it: its waits have
 * bounds of their own (`maxReadWaitMs`, `maxWriteWaitMs`), past which it is answered 503.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { ResolvedOptions } from '../options.js';
import { dispatch, type EndpointContext, type Route } from './router.js';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

function clientErrorAnswer(code: string | undefined): [number, string] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'The request took too long to arrive; the connection is closed. Send the whole request at once.'];
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'The request headers are too large.'];
  return [400, 'The request is not valid HTTP.'];
}

/**
 * Answers a request Node could not parse (or that timed out) with a JSON body, then closes the
 * connection; `refused` hears of each answer sent (for the request log).
 */
function onClientError(error: NodeJS.ErrnoException, socket: Duplex, refused: (status: number, reason: string, remoteAddress: string | undefined) => void): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: a reset or unwritable socket cannot carry an answer; writing one anyway fails silently (Node put a no-op error listener on it before this event) and end()'s callback destroys it
  const gone = error.code === 'ECONNRESET' || !socket.writable;
  // A connection that never sent a byte (a browser's preconnect, a load balancer's TCP check) is
  // no refused request: it is closed without an answer or a log line.
  const silent = (socket as Duplex & { bytesRead?: number }).bytesRead === 0;
  if (gone || silent || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message] = clientErrorAnswer(error.code);
  refused(status, message, (socket as Duplex & { remoteAddress?: string }).remoteAddress);
  const body = JSON.stringify({ ok: false, error: message });
  const head = `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  // Stryker disable next-line ArrowFunction: the answer is sent and the connection half-closed either way; destroying it here only frees it before the fallback below, and a client that writes more is cut at once by the parser's error either way
  socket.end(head + body, () => socket.destroy());
  // Stryker disable next-line ArrowFunction: a fallback; end()'s callback runs first for an answer this small, even when the client reads nothing
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * How long a connection may stay silent (no byte in or out) before the server closes it: one
 * that never sends a request, say, or stopped reading its answer. Long-lived responses must write
 * more often than this. A request being worked on is not cut by it (`keepWorking`).
 */
export function socketIdleTimeoutMs(options: Pick<ResolvedOptions, 'requestTimeoutMs' | 'keepAliveTimeoutMs'>): number {
  return Math.max(options.requestTimeoutMs, options.keepAliveTimeoutMs + 1000);
}

/**
 * Lets the socket's idle timer cut `res`'s connection only once its answer has started: then
 * an idle connection means a client that stopped reading it. Until then the request is being
 * worked on (a read waiting for the views, a write being committed) and its waits have bounds of
 * their own. (Node destroys a timed-out socket only when no one listens for the timeout; a body
 * that stops arriving is answered 408 by `requestTimeout` first.)
 */
export function keepWorking(res: ServerResponse): void {
  res.on('timeout', (socket: Duplex) => {
    if (res.headersSent) socket.destroy();
  });
}

/**
 * Creates the server (not yet listening) that routes requests with `routes`: HTTPS with `tls`
 * (a certificate and key, replaced later with `setSecureContext`), HTTP otherwise.
 */
export function createEndpointServer(routes: ReadonlyMap<string, Route>, context: EndpointContext, tls?: Pick<SecureContextOptions, 'cert' | 'key'>): Server {
  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = context.options;
  const options = {
    requestTimeout: requestTimeoutMs,
    headersTimeout: headersTimeoutMs,
    // A quarter of the headers timeout, 50 ms to 1 s: a request that stops arriving is cut soon after its time is up.
    // Stryker disable next-line MethodExpression: checking more often than every 50 ms cuts no request earlier (Node compares each with its own timeout), it only costs more work
    connectionsCheckingInterval: Math.max(50,
      Math.min(1000, Math.floor(headersTimeoutMs / 4))),
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    keepWorking(res);
    dispatch(routes, req, res, context);
  };
  const server: Server = tls === undefined ? createServer(options, handle) : createHttpsServer({ ...options, ...tls }, handle);
  // A TLS handshake that fails (a plain-HTTP client, an untrusted certificate) is no request: closed without a word, as Node does.
  server.on('tlsClientError', (_error: Error, socket: Duplex) => socket.destroy());
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.timeout = socketIdleTimeoutMs(context.options);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => onClientError(error, socket, (status, reason, address) => {
    context.requests.refusedConnection(status, reason, address);
    context.metrics?.refusedConnection(status);
  }));
  return server;
}

/** Starts listening. Rejects with the `listen` error (EADDRINUSE, EACCES…). */
export function listen(server: Server, options: ResolvedOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      // Stryker disable next-line StringLiteral: once listening, a promise already settled cannot be rejected: leaving the listener changes nothing
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

/**
 * Stops accepting connections, closes idle ones at once and the rest when their request is
 * done, and cuts whatever is still open after `graceMs`. Resolves when every connection is closed.
 */
export function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}
