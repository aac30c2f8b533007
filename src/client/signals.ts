/**
 * `closeOnSignals`: on SIGTERM or SIGINT the client delivers what is pending, writes one line
 * saying what became of its records, and then lets the signal end the process, unless the
 * application listens for the signal itself.
 */
import type { CloseResult } from './client-types.js';
import type { SafeLogger } from './logger.js';

/**
 * Listens for `signals` (once, before the application's own listeners) and runs `close` on the
 * first one. Returns the function that stops listening.
 */
export function closeOnSignals(signals: readonly NodeJS.Signals[], close: () => Promise<CloseResult>, log: SafeLogger): () => void {
  const handlers = new Map<NodeJS.Signals, () => void>();
  const stop = () => {
    for (const [s, h] of handlers) process.off(s, h);
    handlers.clear();
  };
  for (const signal of signals) {
    const handler = () => {
      stop();
      // Ours runs first (prepended), so every listener of the application is still registered
      // here, `once` ones included: counted now, not after close() (when they are gone).
      const applicationListens = process.listenerCount(signal) > 0;
      log.info({ signal }, `${signal}: delivering pending records before exit`);
      void close().then((result) => {
        logClosed(signal, result, log);
        // Let the signal take its course, unless the application listens for it itself.
        if (!applicationListens) process.kill(process.pid, signal);
      });
    };
    handlers.set(signal, handler);
    process.prependOnceListener(signal, handler);
  }
  return stop;
}

/**
 * Logs the one line that says what became of the records: delivered, given up, dropped, saved,
 * abandoned at the deadline, each record counted once (`stats.failed` includes the abandoned ones).
 * A warning when anything was not delivered, else info.
 */
export function logClosed(why: string, result: CloseResult, log: SafeLogger): void {
  const { stats } = result;
  const lost = result.abandoned;
  const line = `${why}: tracking closed: ${stats.delivered} delivered, ${stats.failed - lost} given up, ${stats.dropped} dropped, ${stats.persisted} saved to persistDir, ${lost} abandoned at the deadline`;
  if (lost > 0 || stats.failed > 0 || stats.dropped > 0) log.warn({ ...stats, abandoned: lost }, line);
  else log.info({ ...stats }, line);
}
