/**
 * The endpoint's own log of what it refused: one line per refused request (status, reason, method,
 * path without its query, the client's address; never a key, which lives in the query), and every
 * `intervalMs` a one-line summary of what was accepted and refused since the last one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { refusalReason } from './respond.js';

/** Counts of the requests since the last summary. */
interface Counts {
  accepted: number;
  refused: Map<number, number>;
  /** Reads and writes answered 503 after waiting for the views past their bound. */
  waited: { read: number; write: number };
  /** Records stored with something masked (card numbers, secret-named fields, emails or phone numbers). */
  masked: number;
  /** Entries placed at arrival because their time was more than a day ahead of the endpoint's clock. */
  ahead: number;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Watches responses, logs refusals, and sums them up now and then. */
export class RequestLog {
  private counts: Counts = { accepted: 0, refused: new Map(), waited: { read: 0, write: 0 }, masked: 0, ahead: 0 };
  private readonly timer: NodeJS.Timeout | undefined;

  /**
   * @param log Where lines go.
   * @param intervalMs How often to log the summary (only when something happened since the last); 0: never.
   * @param describe Appended to each summary (where records are kept, say).
   */
  constructor(private readonly log: (line: string) => void, intervalMs: number, private readonly describe?: () => string) {
    if (intervalMs > 0) {
      this.timer = setInterval(() => this.summarise(), intervalMs);
      this.timer.unref();
    }
  }

  /** Counts and, when it is refused, logs the response to `req` once it is sent. */
  watch(req: IncomingMessage, res: ServerResponse, path: string): void {
    res.once('finish', () => {
      const status = res.statusCode;
      if (status < 400) {
        if (path === '/track') this.counts.accepted++;
        return;
      }
      this.counts.refused.set(status, (this.counts.refused.get(status) ?? 0) + 1);
      const reason = (refusalReason(res) ?? '').slice(0, 300);
      this.log(`tracking endpoint: refused ${req.method} ${path.slice(0, 100)} with ${status} from ${req.socket.remoteAddress ?? 'an unknown address'}: ${reason}`);
    });
  }

  /**
   * Counts and logs a request Node answered before it reached a route (a request that is not valid
   * HTTP, headers too large, a body that stopped arriving): no method or path can be trusted there.
   */
  refusedConnection(status: number, reason: string, remoteAddress: string | undefined): void {
    this.counts.refused.set(status, (this.counts.refused.get(status) ?? 0) + 1);
    this.log(`tracking endpoint: refused a request with ${status} from ${remoteAddress ?? 'an unknown address'}: ${reason}`);
  }

  /** Counts a request answered 503 after waiting for the views past its bound (it is refused too: `watch` counts its status). */
  waitedPast(kind: 'read' | 'write'): void {
    this.counts.waited[kind]++;
  }

  /** Counts a record stored with something masked in it (it is accepted too: `watch` counts it). */
  masked(): void {
    this.counts.masked++;
  }

  /** Counts entries of a record stored that were placed at arrival, their time being more than a day ahead of this endpoint's clock. */
  placedAtArrival(entries: number): void {
    this.counts.ahead += entries;
  }

  /** Logs what happened since the last summary, if anything did. */
  summarise(): void {
    const { accepted, refused, waited, masked, ahead } = this.counts;
    if (accepted === 0 && refused.size === 0) return;
    this.counts = { accepted: 0, refused: new Map(), waited: { read: 0, write: 0 }, masked: 0, ahead: 0 };
    const total = [...refused.values()].reduce((sum, n) => sum + n, 0);
    const detail = [...refused.entries()].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(', ');
    const where = this.describe?.();
    const late = waited.read + waited.write > 0 ? `; waited past their bound for the views: ${plural(waited.read, 'read')}, ${plural(waited.write, 'write')} (not stored)` : '';
    const notes = [masked > 0 ? `${masked} masked` : '', ahead > 0 ? `${ahead} ${ahead === 1 ? 'entry' : 'entries'} dated more than a day ahead of this endpoint's clock, placed at arrival` : ''].filter((note) => note !== '');
    const hidden = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    this.log(`tracking endpoint: ${accepted} record${accepted === 1 ? '' : 's'} accepted${hidden}, ${total} request${total === 1 ? '' : 's'} refused${total > 0 ? ` (${detail})` : ''}${late}${where ? `; ${where}` : ''}.`);
  }

  /** Logs the last summary and stops. */
  close(): void {
    clearInterval(this.timer);
    this.summarise();
  }
}
