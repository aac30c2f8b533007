/** Starting and stopping the local tracking endpoint. */
import { KeyPolicy } from './http/auth.js';
import { TrackingEndpointError } from './errors.js';
import { LiveFeed } from './api/live.js';
import { resolveOptions, type TrackingEndpointOptions } from './options.js';
import { createRoutes } from './api/routes.js';
import { RequestLog } from './http/request-log.js';
import { closeServer, createEndpointServer, listen, socketIdleTimeoutMs } from './http/server.js';
import { openStore } from './store/open.js';
import type { ImportReport } from './store/ndjson-import.js';
import type { RecordStore, StoredRecords } from './store/store.js';
import { whereKept } from './store/where-kept.js';
import { loadTls } from './http/tls.js';
import { EndpointMetrics } from './http/metrics.js';
import type { Server as HttpsServer } from 'node:https';

/** A running endpoint. */
export interface TrackingEndpoint {
  /** Base URL, e.g. `http://127.0.0.1:3979`; tracking requests go to `${url}/track`. */
  readonly url: string;
  /** The port it listens on (useful with `port: 0`). */
  readonly port: number;
  /** The host it listens on. */
  readonly host: string;
  /** Which database holds the records: `sqlite` (a file, or `:memory:`) or `postgres` (the URL without its password). */
  readonly database: { readonly kind: 'sqlite' | 'postgres'; readonly location: string };
  /** An earlier version's NDJSON data imported at this start, if any. */
  readonly imported: ImportReport | undefined;
  /** True when any non-placeholder key is accepted (no keys were configured). */
  readonly acceptsAnyKey: boolean;
  /**
   * Who may read: how many readers (tokens, or users the auth proxy may name), the proxy's header
   * when reads trust one, and whether reads are open (loopback with no reader). Never a token.
   */
  readonly access: { readonly readerCount: number; readonly proxyUserHeader: string | undefined; readonly open: boolean };
  /** With HTTPS: the certificate in use (subject and expiry) as read at start; `undefined` for plain HTTP. */
  readonly tls: string | undefined;
  /**
   * Reads the certificate and key files again and uses them for new connections (connections
   * open go on with the old one). Resolves with the new certificate's subject and expiry; rejects
   * with a `TrackingEndpointError` naming the file (the old certificate stays in use) — or when
   * the endpoint serves plain HTTP.
   */
  reloadTls(): Promise<string>;
  /** The stored records (`await endpoint.store.count()`, `records()`, `record(seq)`, `lastSeq()`). */
  readonly store: StoredRecords;
  /**
   * Stops the endpoint: no new connections; requests in progress may finish within
   * `closeGraceMs`; pending writes are committed; the database is closed.
   * Safe to call more than once. Never rejects.
   */
  close(): Promise<void>;
}

function describeListenError(error: NodeJS.ErrnoException, host: string, port: number): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `Port ${port} on ${host} is already in use. Stop whatever uses it, or choose another port (--port, or 0 for any free port).`;
    case 'EACCES':
      return `Not allowed to listen on port ${port}. Use a port above 1023.`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `${host} is not an address of this machine. Use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`;
    default:
      return `Cannot listen on ${host}:${port}: ${error.message}`;
  }
}

/** Most `/api/events` streams open at once (a browser tab holds one). */
const MAX_LIVE_STREAMS = 32;
const DAY_MS = 86_400_000;

function formatUrl(host: string, port: number, secure: boolean): string {
  return `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Starts the tracking endpoint: `POST /track` as the tracking spec describes it, records kept in
 * SQLite (by default) or PostgreSQL, a JSON read side under `/api/` (with live updates at
 * `/api/events`), `/healthz`, and a page at `/` that shows transcripts and charts in a browser.
 *
 * Rejects with a `TrackingEndpointError` whose message says what to do when an option is
 * invalid, the database cannot be opened or reached (or is in use by another endpoint), or the
 * port cannot be listened on.
 *
 * @example
 * const endpoint = await startTrackingEndpoint({ port: 0, apiKeys: ['my-key'], database: false });
 * // POST `${endpoint.url}/track?platform=universal&v=10.1.1-rest&type=incoming&apiKey=my-key`
 * await endpoint.close();
 */
export async function startTrackingEndpoint(options: TrackingEndpointOptions = {}): Promise<TrackingEndpoint> {
  const resolved = resolveOptions(options);
  // Readers are checked before the database is opened: a bad --reader stops nothing half-started.
  const keys = new KeyPolicy(resolved.apiKeys, resolved.loopback, resolved.botNames, { readers: resolved.readers, trustProxyUser: resolved.trustProxyUser, readerUsers: resolved.readerUsers });
  // The certificate is read before the database is opened: a bad file stops nothing half-started.
  const tls = resolved.tls === undefined ? undefined : await loadTls(resolved.tls);
  // What the metrics read at each scrape: the store and the live feed, once they exist.
  const sources: { store?: RecordStore; live?: LiveFeed } = {};
  const metrics = new EndpointMetrics({
    lag: () => sources.store!.lag(),
    liveClients: () => sources.live!.size,
    nameOf: (bot) => keys.nameOf(bot),
  }, resolved.metricsToken);
  const { store, imported } = await openStore({
    database: resolved.database, fsync: resolved.fsync, importFrom: resolved.importFrom, masking: resolved.masking, log: resolved.log,
    waits: { readMs: resolved.maxReadWaitMs, writeMs: resolved.maxWriteWaitMs },
    events: { connectionLost: (connection) => metrics.connectionLost(connection), reconnected: () => metrics.reconnected() },
  });
  if (imported !== undefined) {
    resolved.log(`tracking endpoint: imported ${imported.records} record(s) from ${imported.file} (an earlier version's data file, left in place)${imported.skipped > 0 ? `; skipped ${imported.skipped} unreadable line(s)` : ''}.`);
  }
  // Live streams write a comment well within the idle-socket timeout, so it never cuts them.
  const live = new LiveFeed(store, { heartbeatMs: Math.min(15_000, Math.floor(socketIdleTimeoutMs(resolved) / 3)), maxStreams: MAX_LIVE_STREAMS });
  Object.assign(sources, { store, live });
  const requests = new RequestLog(resolved.log, resolved.summaryIntervalMs, () => `records kept ${whereKept(store.kind, store.location)}`);
  const retention = startRetention(store, resolved.retentionDays, resolved.log);
  const server = createEndpointServer(createRoutes(), { options: resolved, store, keys, live, requests, metrics }, tls?.context);
  let port: number;
  try {
    port = await listen(server, resolved);
  } catch (error) {
    live.close();
    retention.stop();
    requests.close();
    await store.close();
    throw new TrackingEndpointError(describeListenError(error as NodeJS.ErrnoException, resolved.host, resolved.port), { cause: error });
  }
  server.on('error', (error) => resolved.log(`tracking endpoint: server error: ${error.message}`));
  let closing: Promise<void> | undefined;
  return {
    url: formatUrl(resolved.host, port, tls !== undefined),
    port,
    host: resolved.host,
    database: { kind: store.kind, location: store.location },
    imported,
    acceptsAnyKey: keys.acceptsAnyKey,
    access: { readerCount: keys.readerCount, proxyUserHeader: keys.proxyUserHeader, open: resolved.loopback && keys.readerCount === 0 && keys.proxyUserHeader === undefined },
    store,
    tls: tls?.description,
    async reloadTls() {
      if (resolved.tls === undefined) throw new TrackingEndpointError('This endpoint serves plain HTTP: there is no certificate to reload (start it with tlsCertFile and tlsKeyFile).');
      const loaded = await loadTls(resolved.tls);
      (server as HttpsServer).setSecureContext(loaded.context);
      return loaded.description;
    },
    close() {
      live.close(); // ends the live streams, so they never hold the close up
      retention.stop();
      store.stopWaiting(); // writes waiting for the views are answered 503 (not stored), not cut and committed after
      closing ??= closeServer(server, resolved.closeGraceMs)
        .then(() => requests.close())
        .then(() => retention.done)
        .then(() => store.close())
        .catch((error: Error) => resolved.log(`tracking endpoint: error while closing: ${error.message}`));
      return closing;
    },
  };
}

/** Deletes what is older than `days` at start and every hour; `stop()` ends it, `done` settles when a deletion under way ends. */
function startRetention(store: RecordStore, days: number | undefined, log: (line: string) => void): { stop(): void; done: Promise<void> } {
  if (days === undefined) return { stop: () => undefined, done: Promise.resolve() };
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = store.deleteBefore(Date.now() - days * DAY_MS).then(
      (deleted) => {
        if (deleted > 0) log(`tracking endpoint: deleted ${deleted} record(s) older than ${days} day(s) (retention).`);
      },
      (error: Error) => log(`tracking endpoint: retention: could not delete old records (${error.message}); will try again in an hour.`),
    );
  };
  run();
  const timer = setInterval(run, 3_600_000);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    get done() {
      return running;
    },
  };
}
