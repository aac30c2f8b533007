/**
 * Routes requests by path, then method. Unknown paths get 404, other methods 405 with `Allow`,
 * read routes are checked for access, and every handler is guarded: an exception becomes a
 * logged 500 instead of a crash. Add a route (a browser page, say) by adding it to the table.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPEN_ACCESS, type KeyPolicy, type ReadAccess } from './auth.js';
import type { LiveFeed } from '../api/live.js';
import type { ResolvedOptions } from '../options.js';
import { hostHeaderName, isLoopback } from './hosts.js';
import { sendCatchingUp, sendError, setRefusalCode } from './respond.js';
import type { EndpointMetrics } from './metrics.js';
import { CatchingUpError, StoreUnavailableError, type RecordStore } from '../store/store.js';
import type { RequestLog } from './request-log.js';

export type { ReadAccess } from './auth.js';

/** What every handler can use. */
export interface EndpointContext {
  options: ResolvedOptions;
  store: RecordStore;
  keys: KeyPolicy;
  /** The `/api/events` streams. */
  live: LiveFeed;
  /** Counts and logs refused requests. */
  requests: RequestLog;
  /** The endpoint's metrics (`GET /metrics`), fed by every response. */
  metrics?: EndpointMetrics;
}

/** The parsed request target. */
export interface Target {
  path: string;
  query: URLSearchParams;
  /** Who is reading and what they may see: checked for routes with `read: true`, open access otherwise. */
  access: ReadAccess;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, target: Target, context: EndpointContext) => void | Promise<void>;

/** One path: a handler per method (`HEAD` falls back to `GET`), and whether it reads tracked data. */
export interface Route {
  methods: Partial<Record<'GET' | 'POST' | 'DELETE', Handler>>;
  /** Reads tracked data: it needs a reader (off loopback, or when readers are configured); the handler sees what it may in `target.access`. */
  read?: boolean;
  /** Erases data: a reader without the admin right is answered 403 (implies `read`). */
  admin?: boolean;
  /** Matches `path` and anything under `path/`; the handler reads the rest from `target.path`. */
  prefix?: boolean;
  /** Answers whatever the `Host` (a load balancer's health check by address): it reveals nothing. */
  anyHost?: boolean;
}

function parseTarget(url: string): Target {
  let path = url;
  // Stryker disable next-line StringLiteral: a target without "?" has no parameters; any other text here would only add one no handler reads
  let search = '';
  const q = url.indexOf('?');
  if (q !== -1) {
    path = url.slice(0, q);
    search = url.slice(q + 1);
  }
  if (!path.startsWith('/')) {
    try {
      path = new URL(path).pathname;
    } catch {
      path = '/';
    }
  }
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return { path, query: new URLSearchParams(search), access: OPEN_ACCESS };
}

/** Routes one request. Never throws and never rejects. */
export function dispatch(routes: ReadonlyMap<string, Route>, req: IncomingMessage, res: ServerResponse, context: EndpointContext): void {
  try {
    // Stryker disable next-line StringLiteral: a request the server hands to its listener always has a url
    const target = parseTarget(req.url ?? '/');
    const route = routes.get(target.path) ?? prefixRoute(routes, target.path);
    // One `finish` listener per response, for the request log and the metrics both.
    const counted = context.metrics?.begin(req, routePattern(routes, target.path, route));
    res.once('finish', () => {
      context.requests.answered(req, res, target.path);
      counted?.(res);
    });
    if (!route?.anyHost && !hostAllowed(req, context.options)) {
      // A request addressed to a name that is not the endpoint's (DNS rebinding): writes included.
      setRefusalCode(res, 'wrong_host');
      sendError(res, 403, 'This endpoint answers only requests addressed to its own name (localhost, the address it listens on, or a name given with allowedHosts / --allowed-host).');
      return;
    }
    if (!route) {
      sendError(res, 404, `Nothing at ${target.path.slice(0, 100)}. Tracking requests go to POST /track; the index at /api lists the read endpoints.`);
      return;
    }
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    // Stryker disable next-line ConditionalExpression: Node's parser takes only its fixed list of upper-case methods, and none but GET, POST and DELETE names a property of route.methods
    const handler = method === 'GET' || method === 'POST' || method === 'DELETE' ? route.methods[method] : undefined;
    if (!handler) {
      const allow = Object.keys(route.methods).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
      sendError(res, 405, `${req.method} is not allowed on ${target.path}; use ${allow}.`, undefined, { Allow: allow });
      return;
    }
    if (route.read || route.admin) {
      const check = context.keys.checkRead(req);
      if (!check.ok) {
        sendError(res, check.status, check.error);
        return;
      }
      if (route.admin && !check.access.admin) {
        sendError(res, 403, 'Erasing needs an admin reader (--reader NAME=TOKEN:admin).');
        return;
      }
      target.access = check.access;
    }
    const result = handler(req, res, target, context);
    if (result) result.catch((error: unknown) => fail(res, context, error));
  } catch (error) {
    fail(res, context, error);
  }
}

/** The route with `prefix` whose path `path` is under (the longest). */
function prefixRoute(routes: ReadonlyMap<string, Route>, path: string): Route | undefined {
  let found: Route | undefined;
  let length = 0;
  for (const [at, route] of routes) {
    if (route.prefix && path.startsWith(`${at}/`) && at.length > length) {
      found = route;
      length = at.length;
    }
  }
  return found;
}

/** The route's path as in the table (bounded: never the request's own path), or `other` when none matches. */
function routePattern(routes: ReadonlyMap<string, Route>, path: string, route: Route | undefined): string {
  if (route === undefined) return 'other';
  if (routes.get(path) === route) return path;
  for (const [at, candidate] of routes) if (candidate === route) return at;
  // Stryker disable next-line StringLiteral: a route found is always in the table
  return 'other';
}

/** True when the request's `Host` names this endpoint: a loopback name, its address, or an allowed name (a missing Host, HTTP/1.0, passes). */
function hostAllowed(req: IncomingMessage, options: ResolvedOptions): boolean {
  if (options.allowedHosts === undefined) return true;
  const host = hostHeaderName(req.headers.host)?.toLowerCase();
  return host === undefined || isLoopback(host) || options.allowedHosts.has(host);
}

function fail(res: ServerResponse, context: EndpointContext, error: unknown): void {
  if (error instanceof CatchingUpError) {
    // A read waited for the views past its bound (maxReadWaitMs): say how far behind they are, and when to come back.
    context.requests.waitedPast(error.waited);
    if (!res.headersSent) sendCatchingUp(res, error);
    else res.destroy();
    return;
  }
  if (error instanceof StoreUnavailableError || context.store.isUnavailable(error)) {
    // The database went away (or cannot write): a passing state, not a bug. Say when to come back.
    setRefusalCode(res, 'database_unavailable');
    if (!res.headersSent) sendError(res, 503, 'The database is not reachable right now; try again shortly.', undefined, { 'Retry-After': 5 });
    else res.destroy();
    return;
  }
  context.options.log(`tracking endpoint: unexpected error: ${(error as Error)?.stack ?? String(error)}`);
  if (!res.headersSent) sendError(res, 500, 'The endpoint hit an unexpected error; the request was not processed. See the endpoint\'s log.');
  else res.destroy();
}
