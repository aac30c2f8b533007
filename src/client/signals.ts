/**
 * `closeOnSignals`: on SIGTERM or SIGINT the client delivers what is pending, writes one line
 * saying what became of its records, and then lets the signal end the process, unless the
 * application listens for the signal itself.
 */
import type { CloseResult } from './client-types.js';
import { othersListen } from './exit-guard.js';
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
      // here, `once` ones included: counted now, not after close() (when they are gone). The
      // clients' own watch for the end of the process (exit-guard.ts) is not the application's.
      const applicationListens = othersListen(signal);
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
 * Logs the one line that says what became of the records, each record counted once:
 * `delivered + given up + dropped + saved to persistDir + abandoned at the deadline` (the last
 * split into saved and given up) adds up to the records in all (`stats.logged`). Records still
 * pending, if any (requests of records logged while it closed), are said too. A warning when
 * anything was not delivered, else info.
 */
export function logClosed(why: string, result: CloseResult, log: SafeLogger): void {
  const { stats, abandoned, abandonedSaved } = result;
  const givenUp = stats.failed - (abandoned - abandonedSaved);
  const saved = stats.persisted - abandonedSaved;
  const fate = abandoned === 0 ? '' : abandonedSaved === abandoned ? ' (all saved to persistDir)' : abandonedSaved === 0 ? ' (given up)' : ` (${abandonedSaved} saved to persistDir, ${abandoned - abandonedSaved} given up)`;
  const pending = stats.logged - (stats.delivered + stats.failed + stats.dropped + stats.persisted);
  const line =
    `${why}: tracking closed: ${stats.delivered} delivered, ${givenUp} given up, ${stats.dropped} dropped, ${saved} saved to persistDir, ` +
    `${abandoned} abandoned at the deadline${fate}${pending > 0 ? `, ${pending} still pending` : ''}; ${stats.logged} records in all`;
  const fields = { ...stats, abandoned, abandonedSaved };
  if (abandoned > 0 || stats.failed > 0 || stats.dropped > 0 || pending > 0) log.warn(fields, line);
  else log.info(fields, line);
}
