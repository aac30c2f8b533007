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

/** How many distinct non-spec client versions are said in the log. */
export const MAX_VERSIONS_SAID = 20;

function emptyCounts(): Counts {
  return { accepted: 0, refused: new Map(), waited: { read: 0, write: 0 }, masked: 0, ahead: 0 };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Watches responses, logs refusals, and sums them up now and then. */
export class RequestLog {
  private counts: Counts = emptyCounts();
  /** Everything since start, for the line at close(). */
  private readonly total: Counts = emptyCounts();
  private readonly timer: NodeJS.Timeout | undefined;
  /** Client versions outside the spec already said in the log (each is said once). */
  private readonly versionsSaid = new Set<string>();

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
    res.once('finish', () => this.answered(req, res, path));
  }

  /**
   * Counts and, when it is refused, logs the response to `req`, sent now (call it from the
   * response's `finish`: the router's one listener for this log and the metrics).
   */
  answered(req: IncomingMessage, res: ServerResponse, path: string): void {
    const status = res.statusCode;
    if (status < 400) {
      if (path === '/track') this.add((c) => c.accepted++);
      return;
    }
    this.refused(status);
    const reason = (refusalReason(res) ?? '').slice(0, 300);
    this.log(`tracking endpoint: refused ${req.method} ${path.slice(0, 100)} with ${status} from ${req.socket.remoteAddress ?? 'an unknown address'}: ${reason}`);
  }

  /**
   * Counts and logs a request Node answered before it reached a route (a request that is not valid
   * HTTP, headers too large, a body that stopped arriving): no method or path can be trusted there.
   */
  refusedConnection(status: number, reason: string, remoteAddress: string | undefined): void {
    this.refused(status);
    this.log(`tracking endpoint: refused a request with ${status} from ${remoteAddress ?? 'an unknown address'}: ${reason}`);
  }

  /** Counts a request answered 503 after waiting for the views past its bound (it is refused too: `watch` counts its status). */
  waitedPast(kind: 'read' | 'write'): void {
    this.add((c) => c.waited[kind]++);
  }

  /** Counts a record stored with something masked in it (it is accepted too: `watch` counts it). */
  masked(): void {
    this.add((c) => c.masked++);
  }

  /** Counts in this summary's counts and in the totals since start. */
  private add(count: (counts: Counts) => void): void {
    count(this.counts);
    count(this.total);
  }

  private refused(status: number): void {
    this.add((c) => c.refused.set(status, (c.refused.get(status) ?? 0) + 1));
  }

  /**
   * Says once per version that records came from a client version the spec does not list (such as
   * `12.1.0-npm`, which dashbot's own npm client sends). At most {@link MAX_VERSIONS_SAID} versions are
   * said; after that, no more, so that a client sending a new version with every request cannot fill the log.
   */
  clientVersion(v: string): void {
    if (this.versionsSaid.has(v) || this.versionsSaid.size >= MAX_VERSIONS_SAID) return;
    this.versionsSaid.add(v);
    const more = this.versionsSaid.size === MAX_VERSIONS_SAID ? ` (the last such line: ${MAX_VERSIONS_SAID} versions said)` : '';
    this.log(`tracking endpoint: accepting records from client version v=${v}, which the spec does not list (it lists 11.1.0-rest and 10.1.1-rest); start with --strict-versions to refuse them${more}.`);
  }

  /** Counts entries of a record stored that were placed at arrival, their time being more than a day ahead of this endpoint's clock. */
  placedAtArrival(entries: number): void {
    this.add((c) => (c.ahead += entries));
  }

  /** Logs what happened since the last summary, if anything did. */
  summarise(): void {
    const line = this.describeCounts(this.counts);
    if (line === undefined) return;
    this.counts = emptyCounts();
    this.log(`tracking endpoint: ${line}`);
  }

  /** `2 records accepted, 1 request refused (401: 1); …; records kept in …`, or undefined when nothing happened. */
  private describeCounts({ accepted, refused, waited, masked, ahead }: Counts): string | undefined {
    if (accepted === 0 && refused.size === 0) return undefined;
    const total = [...refused.values()].reduce((sum, n) => sum + n, 0);
    const detail = [...refused.entries()].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(', ');
    const where = this.describe?.();
    const late = waited.read + waited.write > 0 ? `; waited past their bound for the views: ${plural(waited.read, 'read')}, ${plural(waited.write, 'write')} (not stored)` : '';
    const notes = [masked > 0 ? `${masked} masked` : '', ahead > 0 ? `${ahead} ${ahead === 1 ? 'entry' : 'entries'} dated more than a day ahead of this endpoint's clock, placed at arrival` : ''].filter((note) => note !== '');
    const hidden = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    return `${accepted} record${accepted === 1 ? '' : 's'} accepted${hidden}, ${total} request${total === 1 ? '' : 's'} refused${total > 0 ? ` (${detail})` : ''}${late}${where ? `; ${where}` : ''}.`;
  }

  /**
   * Stops, logging one line of everything since start (the minute summaries each cover their own
   * minute), when anything happened at all.
   */
  close(): void {
    clearInterval(this.timer);
    const line = this.describeCounts(this.total);
    this.counts = emptyCounts();
    if (line !== undefined) this.log(`tracking endpoint: since start: ${line}`);
  }
}
