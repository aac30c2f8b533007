/**
 * PostgreSQL's LISTEN for commits of other endpoints, on a connection of its own that comes back
 * by itself after the database went away.
 */
import type { Client, ClientConfig } from 'pg';
import { processPacer, type Pacer } from './projection.js';
import type { DatabaseEvents } from './backend.js';

/** The channel additions to the views are announced on. */
export const NOTIFY_CHANNEL = 'tracking_records';

/** The first pause before reconnecting, and the longest (ms): it doubles after each failed try. */
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5_000;

/** What `listenForCommits` needs. */
export interface CommitListenerOptions {
  /** The `pg` module (its `Client`). */
  pg: { Client: new (config: ClientConfig) => Client };
  /** How to connect. */
  config: ClientConfig;
  /** Called on each commit announced, and once after the connection came back (commits may have been missed). */
  listener: () => void;
  /** Where to say the connection was lost, and that it is back. */
  log: (message: string) => void;
  /** The timer the pauses between tries are waited with: the process's own unless a test moves time by hand. */
  after?: Pacer['after'];
  /** Hears that the connection was lost, and that it is back. */
  events?: DatabaseEvents;
}

/**
 * LISTENs for commits on a connection of its own; when it is lost, reconnects with a growing
 * pause (250 ms, doubling up to 5 s) and then calls `listener` once. Returns what stops it.
 */
export function listenForCommits(options: CommitListenerOptions): () => void {
  const { pg, config, listener, log } = options;
  const after = options.after ?? processPacer.after;
  let stopped = false;
  let client: Client | undefined;
  let cancelRetry: (() => void) | undefined;
  let pause = FIRST_PAUSE_MS;
  let lost = false;
  const connect = async (): Promise<void> => {
    const next = new pg.Client(config);
    next.on('notification', () => listener());
    next.on('error', () => reconnect(next));
    next.on('end', () => reconnect(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch {
      reconnect(next);
      return;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    pause = FIRST_PAUSE_MS;
    if (lost) {
      lost = false;
      log('tracking endpoint: live updates from the database are back.');
      options.events?.reconnected();
      listener();
    }
  };
  // A client that failed (`from`): unless another one is already listening, or a try is planned,
  // plan the next try. Its end, which follows its error, is no news.
  const reconnect = (from: Client): void => {
    if (stopped || cancelRetry !== undefined || (client !== undefined && client !== from)) return;
    if (!lost) {
      log('tracking endpoint: lost the database connection that brings live updates; reconnecting.');
      options.events?.connectionLost('listen');
    }
    lost = true;
    client = undefined;
    from.removeAllListeners('end');
    from.end().catch(() => undefined);
    cancelRetry = after(pause, () => {
      cancelRetry = undefined;
      void connect();
    });
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  };
  void connect();
  return () => {
    stopped = true;
    cancelRetry?.();
    void client?.end().catch(() => undefined);
  };
}
