/** Starting and stopping the local tracking endpoint. */
import { KeyPolicy } from './http/auth.js';
import { TrackingEndpointError } from './errors.js';
import { LiveFeed } from './api/live.js';
import { resolveOptions, type TrackingEndpointOptions } from './options.js';
import { createRoutes } from './api/routes.js';
import { closeServer, createEndpointServer, listen, socketIdleTimeoutMs } from './http/server.js';
import { RecordStore } from './store/store.js';

/** A running endpoint. */
export interface TrackingEndpoint {
  /** Base URL, e.g. `http://127.0.0.1:3979`; tracking requests go to `${url}/track`. */
  readonly url: string;
  /** The port it listens on (useful with `port: 0`). */
  readonly port: number;
  /** The host it listens on. */
  readonly host: string;
  /** Absolute path of the data file, or `false` when records are kept in memory only. */
  readonly dataFile: string | false;
  /** True when any non-placeholder key is accepted (no keys were configured). */
  readonly acceptsAnyKey: boolean;
  /** The stored records and the read indexes over them. */
  readonly store: RecordStore;
  /**
   * Stops the endpoint: no new connections; requests in progress may finish within
   * `closeGraceMs`; pending writes complete; the data file and its lock are released.
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

function formatUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Starts the local tracking endpoint: `POST /track` as the tracking spec describes it, a
 * JSON read side under `/api/` (with live updates at `/api/events`), and a page at `/` that
 * shows transcripts and charts in a browser. Records already in the data file are loaded first.
 *
 * Rejects with a `TrackingEndpointError` whose message says what to do when an option is
 * invalid, the data file cannot be used (or is in use by another endpoint), or the port
 * cannot be listened on.
 *
 * @example
 * const endpoint = await startTrackingEndpoint({ port: 0, apiKeys: ['my-key'], dataFile: false });
 * // POST `${endpoint.url}/track?platform=universal&v=10.1.1-rest&type=incoming&apiKey=my-key`
 * await endpoint.close();
 */
export async function startTrackingEndpoint(options: TrackingEndpointOptions = {}): Promise<TrackingEndpoint> {
  const resolved = resolveOptions(options);
  const store = await RecordStore.open({ dataFile: resolved.dataFile, fsync: resolved.fsync });
  const keys = new KeyPolicy(resolved.apiKeys, resolved.loopback);
  // Live streams write a comment well within the idle-socket timeout, so it never cuts them.
  const live = new LiveFeed(store.read, { heartbeatMs: Math.min(15_000, Math.floor(socketIdleTimeoutMs(resolved) / 3)), maxStreams: MAX_LIVE_STREAMS });
  const server = createEndpointServer(createRoutes(), { options: resolved, store, keys, live });
  let port: number;
  try {
    port = await listen(server, resolved);
  } catch (error) {
    live.close();
    await store.close();
    throw new TrackingEndpointError(describeListenError(error as NodeJS.ErrnoException, resolved.host, resolved.port), { cause: error });
  }
  server.on('error', (error) => resolved.log(`tracking endpoint: server error: ${error.message}`));
  let closing: Promise<void> | undefined;
  return {
    url: formatUrl(resolved.host, port),
    port,
    host: resolved.host,
    dataFile: resolved.dataFile,
    acceptsAnyKey: keys.acceptsAnyKey,
    store,
    close() {
      live.close(); // ends the live streams, so they never hold the close up
      closing ??= closeServer(server, resolved.closeGraceMs)
        .then(() => store.close())
        .catch((error: Error) => resolved.log(`tracking endpoint: error while closing: ${error.message}`));
      return closing;
    },
  };
}
