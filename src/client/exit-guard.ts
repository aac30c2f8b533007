/**
 * When a process runs out of work while a client still has records pending (waiting to be
 * retried: backoff timers do not keep the process alive) or a replay under way (its pacing timer
 * does not either), the client closes itself: it keeps trying for up to `closeTimeoutMs`, gives up
 * (or saves) the rest, and says in one line what became of them. A short script that never calls
 * `close()` thus still gets its records delivered, and exits within the deadline when the
 * endpoint is down.
 *
 * One `beforeExit` listener serves every client of the process (a listener per client would trip
 * Node's MaxListeners warning in a process with many clients). The set of clients to call is the
 * one piece of module-level state in the client: it is the process's, not any client's.
 */

const watchers = new Set<() => void>();

function onBeforeExit(): void {
  for (const watcher of [...watchers]) watcher();
}

/** Calls `watcher` each time the process runs out of work; returns the function that stops it (calling it twice is harmless). */
export function watchExit(watcher: () => void): () => void {
  if (watchers.size === 0) process.on('beforeExit', onBeforeExit);
  watchers.add(watcher);
  return () => {
    watchers.delete(watcher);
    if (watchers.size === 0) process.off('beforeExit', onBeforeExit);
  };
}

/** What a client tells its exit guard. */
export interface GuardedClient {
  /** Whether the client has anything left to deliver (pending records, a replay under way). */
  busy(): boolean;
  /** Whether `close()` has begun. */
  closing(): boolean;
  /** Closes the client and reports how it went (one line). */
  closeAndReport(): void;
}

/**
 * Guards a client while it is busy: returns the function to call whenever it may have become busy
 * (cheap when already guarded). When the process runs out of work and the client is busy, it is
 * closed; when it is idle, the guard stands down until the next call.
 */
export function exitGuard(client: GuardedClient): { arm(): void; disarm(): void } {
  let stop: (() => void) | undefined;
  const disarm = () => {
    stop?.();
    stop = undefined;
  };
  const onExit = () => {
    if (client.closing()) return disarm();
    if (!client.busy()) return disarm();
    client.closeAndReport();
  };
  return {
    arm() {
      if (stop === undefined && !client.closing()) stop = watchExit(onExit);
    },
    disarm,
  };
}
