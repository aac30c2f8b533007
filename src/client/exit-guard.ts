/**
 * Nothing of the client keeps a process alive on its own: not its backoff timers, not a replay's
 * pacing timer, not even the sockets and timeouts of requests in flight. When a process runs out
 * of work while a client is busy, this guard decides (see `exitGuard`): it holds the process open
 * while requests are in flight, for up to `closeTimeoutMs`; with records waiting to be retried, or
 * at that deadline, it closes the client, which keeps trying for what is left of the deadline,
 * cuts off requests still in flight, gives up (or saves) the rest, and says in one line what
 * became of them. A short script that never calls `close()` thus still gets its records
 * delivered, and exits within the deadline of its last line when the endpoint is down or never
 * answers.
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

/**
 * The end of a process that is not a run out of work: a signal (SIGINT, SIGTERM) or `process.exit()`.
 * While a client has records pending, it listens for both so that it can say how many records the
 * process leaves behind, never nothing (an idle client does not listen). A signal nobody else
 * listens for then takes its course as before: the listener lets go and raises it again.
 */
export interface EndWatcher {
  /**
   * The process got `signal`. Returns true when the client takes care of it (`closeOnSignals`: it
   * closes, then raises the signal again itself); else it says what it leaves behind, if anything.
   */
  signal(signal: NodeJS.Signals): boolean;
  /** The process is exiting (the `exit` event): say what is left behind, if anything. */
  exit(): void;
}

const END_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const endWatchers = new Set<EndWatcher>();
const signalListeners = new Map<NodeJS.Signals, () => void>(END_SIGNALS.map((signal) => [signal, () => onEndSignal(signal)]));

function onProcessExit(): void {
  for (const watcher of [...endWatchers]) watcher.exit();
}

function listen(on: boolean): void {
  const method = on ? 'on' : 'off';
  process[method]('exit', onProcessExit);
  // First in line: an application's `process.once(signal, …)` is removed as it is called, so a
  // listener called after it would think nobody else listens and end the process under it.
  for (const [signal, listener] of signalListeners) {
    if (on) process.prependListener(signal, listener);
    else process.off(signal, listener);
  }
}

/** Whether anything other than the clients' own watch listens for `signal` (the application, or a client's `closeOnSignals`). */
export function othersListen(signal: NodeJS.Signals): boolean {
  const ours = signalListeners.get(signal);
  return process.listeners(signal).some((listener) => listener !== ours);
}

function onEndSignal(signal: NodeJS.Signals): void {
  let handled = false;
  for (const watcher of [...endWatchers]) handled = watcher.signal(signal) || handled;
  if (handled || othersListen(signal)) return;
  // Nobody else listens: the signal takes its course, as it would have without us.
  endWatchers.clear();
  listen(false);
  process.kill(process.pid, signal);
}

/** Calls `watcher` when the process gets SIGINT or SIGTERM or exits; returns the function that stops it (calling it twice is harmless). */
export function watchEnd(watcher: EndWatcher): () => void {
  if (endWatchers.size === 0) listen(true);
  endWatchers.add(watcher);
  return () => {
    if (!endWatchers.delete(watcher)) return;
    if (endWatchers.size === 0) listen(false);
  };
}

/** What a client tells its exit guard. */
export interface GuardedClient {
  /** Whether the client has anything left to deliver (pending records, a replay under way). */
  busy(): boolean;
  /** Whether requests are in flight. */
  sending(): boolean;
  /**
   * Keeps the process alive for the requests in flight now (their sockets, until they are
   * answered). Returns false when the transport cannot: the guard then holds the process with a timer.
   */
  holdSending(): boolean;
  /** Whether `close()` has begun. */
  closing(): boolean;
  /** Closes the client within its deadline counted from `since` (`performance.now()`), and reports how it went (one line). */
  closeAndReport(since: number): void;
  /** The close deadline, in ms (`closeTimeoutMs`). */
  readonly deadlineMs: number;
  /** What the client says when the process ends by a signal or `process.exit()` while it is busy. */
  end: EndWatcher;
}

/** What a client does with its exit guard. */
export interface ExitGuard {
  /** The client may have become busy: watch for the process running out of work (cheap when already watching). */
  arm(): void;
  /** Stop watching (the client is closing), and let go of the process. */
  disarm(): void;
  /** No request of the client is in flight any more (it is idle, or its records wait to be retried). */
  quiet(): void;
}

/**
 * Guards a client while it is busy. When the process runs out of work:
 * - the client is idle: the guard stands down until the next `arm()`;
 * - records wait to be retried (or a replay is under way): the client is closed, its deadline
 *   counted from the moment the process first ran out of work with the client busy;
 * - requests are in flight: the process is kept alive for them (their sockets), and no longer
 *   than that deadline. An awaited record thus settles and the script goes on with its client
 *   open; when the requests settle into retries, the process runs out of work again and the
 *   client is closed (above); at the deadline, it is closed, which cuts those requests off.
 * The deadline is counted afresh once the client has been idle.
 */
export function exitGuard(client: GuardedClient): ExitGuard {
  let stop: (() => void) | undefined;
  /** Stops the watch for signals and `process.exit()` (held while the client is busy). */
  let stopEnd: (() => void) | undefined;
  /** When the process first ran out of work with this client busy (reset once the client is idle). */
  let since: number | undefined;
  /** Closes the client at the deadline while requests are in flight. */
  let deadline: NodeJS.Timeout | undefined;
  const release = () => {
    clearTimeout(deadline);
    deadline = undefined;
  };
  const unwatchEnd = () => {
    stopEnd?.();
    stopEnd = undefined;
  };
  const disarm = () => {
    release();
    stop?.();
    stop = undefined;
    unwatchEnd();
    since = undefined;
  };
  const close = (at: number) => {
    release();
    client.closeAndReport(at);
  };
  const onExit = () => {
    if (client.closing() || !client.busy()) return disarm();
    const at = (since ??= performance.now());
    if (!client.sending()) return close(at);
    deadline ??= setTimeout(close, Math.max(0, client.deadlineMs - (performance.now() - at)), at);
    // The sockets keep the process alive while their requests are in flight; the timer only when they cannot.
    if (client.holdSending()) deadline.unref();
    else deadline.ref();
  };
  return {
    arm() {
      // A client that is closing stops watching when its close() has settled its records, and takes no
      // record after that; until then, onExit leaves it to its close(). No need to ask it here.
      stop ??= watchExit(onExit);
      stopEnd ??= watchEnd(client.end);
    },
    disarm,
    quiet() {
      // Whatever awaited the requests goes on; when the process runs out of work again, onExit decides.
      release();
      if (client.busy()) return;
      since = undefined;
      unwatchEnd();
    },
  };
}
