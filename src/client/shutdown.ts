/**
 * `close()`, step by step: let running turns finish (up to half the deadline), stop taking
 * records, wait for pending ones until the deadline, give up (or save) the rest with a message
 * naming the endpoint, save what a replay under way has left, sum up the reports, free the sockets.
 */
import type { CloseResult, TrackingStats } from './client-types.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { endpointOf } from './diagnose.js';
import type { SafeLogger } from './logger.js';
import type { Replay } from './replay.js';
import type { Reporter } from './reporter.js';
import type { LossTally } from './tally.js';
import type { Transport } from './transport.js';

/** The parts of a client `shutdown` works on. */
export interface ShutdownParts {
  queue: DeliveryQueue;
  replay: Replay | undefined;
  transport: Transport;
  reporter: Reporter;
  /** Counts what was not delivered, by kind: its line is written at close (tally.ts). */
  tally: LossTally;
  log: SafeLogger;
  /** Whether the client has a `persistDir`. */
  persisting: boolean;
  runningTurns(): number;
  /** Registers the function to call when the last running turn ends. */
  onTurnsEnded(resolve: (() => void) | undefined): void;
  /** From now on, records are refused (deferred tasks run first). */
  stopTaking(): void;
  /** Stops listening for signals and for the process running out of work. */
  stopWatching(): void;
  stats(): TrackingStats;
}

/** What a record given up at the deadline is told: which record, where it was going, how far it got, and what to do. */
function deadlineMessage(timeoutMs: number, persisting: boolean) {
  return (record: { label: string; url: string }, attempts: number, lastStatus: number | undefined, hint: string | undefined): string => {
    const progress =
      attempts === 0
        ? 'not sent yet: records ahead of it were still under way'
        : lastStatus === undefined
          ? `${attempts} attempt${attempts === 1 ? '' : 's'}, none answered`
          : `${attempts} attempt${attempts === 1 ? '' : 's'}, the last answered HTTP ${lastStatus}`;
    const advice = persisting ? 'Raise closeTimeoutMs to give records more time.' : 'Raise closeTimeoutMs to give records more time, or set persistDir to keep such records for the next start.';
    return `close() reached its deadline (${timeoutMs} ms) before the ${record.label} record could be delivered to ${endpointOf(record.url)} (${progress}). ${hint === undefined ? '' : `${hint} `}${advice}`;
  };
}

/**
 * Runs `close()` (see the file's header), its deadline `timeoutMs` counted from `startedAt`
 * (`performance.now()`; earlier than now when the process ran out of work before). Never rejects.
 */
export async function shutdown(timeoutMs: number, startedAt: number, parts: ShutdownParts): Promise<CloseResult> {
  if (parts.runningTurns() > 0) {
    let wait: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      parts.onTurnsEnded(resolve);
      wait = setTimeout(resolve, Math.max(0, timeoutMs / 2 - (performance.now() - startedAt)));
    });
    clearTimeout(wait);
    parts.onTurnsEnded(undefined);
  }
  parts.stopTaking();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), Math.max(0, timeoutMs - (performance.now() - startedAt)));
  });
  const outcome = await Promise.race([parts.queue.flush().then(() => 'flushed' as const), deadline]);
  clearTimeout(timer);
  parts.stopWatching();
  const { abandoned, saved } = outcome === 'deadline' ? parts.queue.abandon('close-deadline', deadlineMessage(timeoutMs, parts.persisting)) : { abandoned: 0, saved: 0 };
  // Only now, with nothing of the replay's left in the queue, does it know what to write back.
  parts.replay?.finish();
  parts.reporter.flush();
  parts.tally.flush();
  try {
    await parts.transport.close?.();
  } catch (error) {
    parts.log.warn({ error }, 'closing the transport failed');
  }
  return { abandoned, abandonedSaved: saved, stats: parts.stats() };
}
