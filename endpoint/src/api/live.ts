/**
 * `GET /api/events`: a server-sent event stream that tells readers (the page) when records
 * arrive, so they can fetch what changed: records this endpoint stored, and on PostgreSQL those
 * any endpoint on the same database stored. Each stream is sent a comment now and then so the
 * server's idle-socket timeout never cuts it, is dropped when its reader stops reading, and is
 * ended at once when the endpoint closes. The number of streams is capped.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordStore } from '../store/store.js';
import { botsState } from '../read/charts.js';
import { sendError } from '../http/respond.js';
import type { RecordsEvent } from '../types.js';

/** How a `LiveFeed` behaves. */
export interface LiveFeedOptions {
  /** Interval of the keep-alive comment; keep it well below the server's idle-socket timeout. */
  heartbeatMs: number;
  /** Most streams open at once; one more is refused with 503. */
  maxStreams: number;
  /** Notifications are sent at most this often, carrying the latest state. Default 50 ms. */
  coalesceMs?: number;
}

/** A stream whose reader has this much unread is dropped (it reconnects when it reads again). */
const MAX_BUFFERED = 64 * 1024;
/** What the reader's EventSource (or fetch reader) waits before reconnecting, in ms. */
const RETRY_MS = 2000;

/** Server-sent events about new records, for every open `/api/events` stream of one endpoint. */
export class LiveFeed {
  /** Each open stream, with the bots its reader may see (`null`: every bot) and the last event it was sent. */
  private readonly streams = new Map<ServerResponse, { bots: ReadonlySet<string> | null; last: string }>();
  private readonly unsubscribe: () => void;
  private heartbeat: NodeJS.Timeout | undefined;
  private pending: NodeJS.Timeout | undefined;
  /** The state for the next event is being read from the store. */
  private reading = false;
  private changedWhileReading = false;
  private closed = false;

  constructor(private readonly store: RecordStore, private readonly options: LiveFeedOptions) {
    this.unsubscribe = store.watch(() => this.schedule());
  }

  /** Streams open now. */
  get size(): number {
    return this.streams.size;
  }

  /** The `records` event: where the store stands now, for a reader who sees `bots` (`null`: every bot). */
  private async current(bots: ReadonlySet<string> | null): Promise<string> {
    let state: RecordsEvent;
    if (bots === null) {
      const [lastSeq, records] = await Promise.all([this.store.lastSeq(), this.store.count()]);
      state = { lastSeq, records };
    } else state = await botsState(this.store, [...bots]);
    return `event: records\ndata: ${JSON.stringify(state)}\n\n`;
  }

  /** The `records` event for every stream (one read per scope), sent to those whose state changed. */
  private async sendCurrent(): Promise<void> {
    const events = new Map<string, Promise<string>>();
    const scopeKey = (bots: ReadonlySet<string> | null) => (bots === null ? '*' : [...bots].sort().join(','));
    for (const { bots } of this.streams.values()) {
      const key = scopeKey(bots);
      if (!events.has(key)) events.set(key, this.current(bots));
    }
    const texts = new Map<string, string>();
    for (const [key, event] of events) texts.set(key, await event);
    // Stryker disable next-line ConditionalExpression: close() empties the streams, so after it the loop below writes nothing either way
    if (this.closed) return;
    for (const [res, stream] of this.streams) {
      const text = texts.get(scopeKey(stream.bots));
      if (text !== undefined && text !== stream.last) this.write(res, stream, text);
    }
  }

  private write(res: ServerResponse, stream: { last: string }, text: string): void {
    stream.last = text;
    // Stryker disable next-line EqualityOperator: a soft bound; what the reader's socket leaves unread cannot be made exactly 64 KiB to tell > from >=
    if (res.writableLength > MAX_BUFFERED) {
      res.destroy();
      this.drop(res);
    } else res.write(text);
  }

  /**
   * Answers `GET /api/events`: `text/event-stream`, starting with the current `records` event.
   * 503 (with `Retry-After`) when the cap is reached or the endpoint is closing. A reader scoped to
   * `bots` is told only about theirs: their last seq and record count, sent when those change.
   */
  open(req: IncomingMessage, res: ServerResponse, bots: ReadonlySet<string> | null = null): void {
    if (this.closed || this.streams.size >= this.options.maxStreams) {
      const why = this.closed ? 'The endpoint is stopping.' : `Too many live streams are open (${this.options.maxStreams}); close a tab, or poll /api/summary instead.`;
      sendError(res, 503, why, undefined, { 'Retry-After': 5 });
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    res.write(`retry: ${RETRY_MS}\n`);
    // Stryker disable next-line StringLiteral: no event is ever this text, so the first event differs from it whatever it is
    const stream = { bots, last: '' };
    this.streams.set(res, stream);
    res.on('close', () => this.drop(res));
    this.current(bots).then(
      (event) => {
        // Stryker disable next-line ConditionalExpression: a response no longer among the streams was ended (close()) or destroyed (its reader gone, or dropped), so a write to it sends nothing
        if (this.streams.has(res)) this.write(res, stream, event);
      },
      () => undefined, // the database is away: the next change (or the reader's reconnect) brings it
    );
    this.heartbeat ??= setInterval(() => this.send(': keep-alive\n\n'), this.options.heartbeatMs).unref();
  }

  private drop(res: ServerResponse): void {
    this.streams.delete(res);
    if (this.streams.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  private send(text: string): void {
    for (const res of this.streams.keys()) {
      // Stryker disable next-line EqualityOperator: a soft bound; what the reader's socket leaves unread cannot be made exactly 64 KiB to tell > from >=
      if (res.writableLength > MAX_BUFFERED) {
        res.destroy();
        this.drop(res);
      } else res.write(text);
    }
  }

  /**
   * Sends the latest state to every stream, at most once per `coalesceMs`. A change that comes
   * while the state is being read is sent in one more event after it, never lost.
   */
  private schedule(): void {
    if (this.streams.size === 0 || this.closed) return;
    if (this.pending) {
      if (this.reading) this.changedWhileReading = true;
      return;
    }
    this.pending = setTimeout(() => {
      this.reading = true;
      this.sendCurrent()
        .catch(() => undefined)
        .finally(() => {
          this.pending = undefined;
          this.reading = false;
          if (this.changedWhileReading) {
            this.changedWhileReading = false;
            this.schedule();
          }
        });
    }, this.options.coalesceMs ?? 50).unref();
  }

  /** Ends every stream and refuses new ones. Safe to call twice. */
  close(): void {
    this.closed = true;
    this.unsubscribe();
    clearTimeout(this.pending);
    clearInterval(this.heartbeat);
    this.pending = this.heartbeat = undefined;
    for (const res of this.streams.keys()) res.end();
    this.streams.clear();
  }
}
