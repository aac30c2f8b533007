/**
 * `GET /metrics`: the endpoint's metrics in Prometheus' text format, kept with `prom-client` in a
 * registry of this endpoint's own (several endpoints may run in one process): records accepted
 * per bot, requests refused by status, reason and bot, request latency per route, how far the
 * views are behind, lost database connections and their return, live-page clients, and Node's
 * process metrics.
 *
 * Every label value comes from a fixed list or from the endpoint's configuration (bot names given
 * with `--key NAME=KEY`, else a key's fingerprint; never a key, a path or free text), and the bots
 * named are capped, so that no client can grow the number of series without bound.
 *
 * Access: open like the other reads on loopback with no reader; otherwise a reader that sees every
 * bot, or the metrics token (`--metrics-token`). A reader scoped to some bots is refused (403):
 * the metrics name every bot.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { bearerToken, digest, matchIndex, type KeyPolicy } from './auth.js';
import { refusalCode, responseBot, sendError } from './respond.js';
import type { Lag } from '../store/catching-up.js';

/** What the metrics read when scraped. */
export interface MetricsSources {
  /** How far behind the views are. */
  lag(): Promise<Lag>;
  /** `/api/events` streams open now. */
  liveClients(): number;
  /** The name given to a bot's key, if any. */
  nameOf(bot: string): string | undefined;
}

/** Most distinct bots named in labels; the rest are counted as `other` (keys accepted unnamed can be many). */
export const MAX_BOT_LABELS = 100;

/** The refusal reason a status means when the refusal set no code of its own. */
const STATUS_REASONS: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'timeout',
  413: 'too_large',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
  500: 'internal_error',
  503: 'unavailable',
  504: 'commit_unknown',
};

/** The reason label of a refusal with `status` (and the code set where it was refused, if any). */
export function reasonLabel(status: number, code: string | undefined): string {
  return code ?? STATUS_REASONS[status] ?? 'other';
}

/** `2xx`, `4xx`…: the status's class. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']);

/** The method label: one of the usual methods, else `other`. */
export function methodLabel(method: string | undefined): string {
  // Stryker disable next-line ConditionalExpression: METHODS.has(undefined) is false too; the test only narrows the type
  return method !== undefined && METHODS.has(method) ? method : 'other';
}

/** The metrics of one endpoint. */
export class EndpointMetrics {
  /** This endpoint's registry (never prom-client's global one). */
  readonly registry = new Registry();
  private readonly accepted: Counter<'bot'>;
  private readonly refused: Counter<'status' | 'reason' | 'bot'>;
  private readonly duration: Histogram<'route' | 'method' | 'status_class'>;
  private readonly connectionsLost: Counter<'connection'>;
  private readonly reconnects: Counter;
  private readonly databaseErrors: Counter<'reason'>;
  private readonly botLabels = new Set<string>();
  private readonly tokenDigest: Buffer | undefined;
  private processMetrics = false;

  /**
   * @param sources What is read at each scrape.
   * @param metricsToken The token that may read the metrics, if any.
   */
  constructor(private readonly sources: MetricsSources, metricsToken?: string) {
    this.tokenDigest = metricsToken === undefined ? undefined : digest(metricsToken);
    const registers = [this.registry];
    this.accepted = new Counter({ name: 'tracking_records_accepted_total', help: 'Records accepted (POST /track answered 200), by bot: the name given with --key NAME=KEY, else the key\'s fingerprint.', labelNames: ['bot'], registers });
    this.refused = new Counter({ name: 'tracking_requests_refused_total', help: 'Requests refused (answered 4xx or 5xx), by status, reason and bot (empty when the request named no known bot).', labelNames: ['status', 'reason', 'bot'], registers });
    this.duration = new Histogram({
      name: 'tracking_request_duration_seconds',
      help: 'Time from a request\'s arrival to the end of its answer, by route (the route\'s path, or "other"), method and status class.',
      labelNames: ['route', 'method', 'status_class'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.connectionsLost = new Counter({ name: 'tracking_database_connections_lost_total', help: 'Database connections lost (PostgreSQL): pool, one that runs queries; listen, the one that brings other endpoints\' commits.', labelNames: ['connection'], registers });
    this.reconnects = new Counter({ name: 'tracking_database_reconnects_total', help: 'Times the connection that brings other endpoints\' commits came back after it was lost (PostgreSQL).', registers });
    this.databaseErrors = new Counter({ name: 'tracking_database_errors_total', help: 'Requests the database failed: unavailable (it could not be reached or could not write; answered 503), commit_unknown (a commit\'s answer was lost; answered 504).', labelNames: ['reason'], registers });
    new Gauge({
      name: 'tracking_views_behind_records',
      help: 'Records stored and not yet in the views the reads answer from.',
      registers,
      async collect() {
        this.set((await sources.lag()).behindRecords);
      },
    });
    new Gauge({
      name: 'tracking_views_behind_seconds',
      help: 'How long ago the oldest record not yet in the views was received (0 when the views hold every record).',
      registers,
      async collect() {
        this.set((await sources.lag()).behindSeconds);
      },
    });
    new Gauge({
      name: 'tracking_live_clients',
      help: 'Live-page clients: /api/events streams open now.',
      registers,
      collect() {
        this.set(sources.liveClients());
      },
    });
  }

  /** The bot label: its name, else its fingerprint; `other` past `MAX_BOT_LABELS` distinct bots. */
  private botLabel(bot: string | undefined): string {
    if (bot === undefined) return '';
    const label = this.sources.nameOf(bot) ?? bot;
    if (this.botLabels.has(label)) return label;
    if (this.botLabels.size >= MAX_BOT_LABELS) return 'other';
    this.botLabels.add(label);
    return label;
  }

  /**
   * Starts timing a request to `route` (the route's path, or `other`); the function returned counts
   * its response, accepted or refused, with its time: call it once the response is sent (its
   * `finish`). The router calls it from the one `finish` listener it adds for the request log too.
   */
  begin(req: IncomingMessage, route: string): (res: ServerResponse) => void {
    const end = this.duration.startTimer();
    return (res) => {
      const status = res.statusCode;
      end({ route, method: methodLabel(req.method), status_class: statusClass(status) });
      if (status < 400) {
        if (route === '/track') this.accepted.inc({ bot: this.botLabel(responseBot(res)) });
        return;
      }
      const reason = reasonLabel(status, refusalCode(res));
      this.refused.inc({ status: String(status), reason, bot: this.botLabel(responseBot(res)) });
      if (reason === 'database_unavailable') this.databaseErrors.inc({ reason: 'unavailable' });
      else if (reason === 'commit_unknown') this.databaseErrors.inc({ reason });
    };
  }

  /** Counts a request Node answered before it reached a route (not valid HTTP, headers too large, too slow). */
  refusedConnection(status: number): void {
    this.refused.inc({ status: String(status), reason: status === 400 ? 'invalid_http' : reasonLabel(status, undefined), bot: '' });
  }

  /** Counts a lost database connection. */
  connectionLost(connection: 'pool' | 'listen'): void {
    this.connectionsLost.inc({ connection });
  }

  /** Counts the return of the connection that brings other endpoints' commits. */
  reconnected(): void {
    this.reconnects.inc();
  }

  /**
   * Why `req` may not read the metrics, or `undefined` when it may: with the metrics token, or
   * with a read check that passes with every bot in sight.
   */
  refusal(req: IncomingMessage, keys: KeyPolicy): { status: 401 | 403; error: string } | undefined {
    const given = bearerToken(req);
    if (this.tokenDigest !== undefined && given && matchIndex(given, [this.tokenDigest]) !== -1) return undefined;
    const check = keys.checkRead(req);
    if (!check.ok) {
      const hint = this.tokenDigest === undefined ? '' : ' or the metrics token (--metrics-token)';
      return { status: check.status, error: `${check.error.replace(/\.$/, '')}; /metrics also takes a reader of every bot${hint}.` };
    }
    if (check.access.bots !== null) {
      return { status: 403, error: 'The metrics name every bot: a reader scoped to some bots cannot read them. Use a reader of every bot, or the metrics token (--metrics-token).' };
    }
    return undefined;
  }

  /** Answers `GET /metrics` (or refuses it): the text format, Node's process metrics included (collected from the first scrape on). */
  async answer(req: IncomingMessage, res: ServerResponse, keys: KeyPolicy): Promise<void> {
    const refused = this.refusal(req, keys);
    if (refused !== undefined) return sendError(res, refused.status, refused.error);
    if (!this.processMetrics) {
      // Started at the first scrape, not at start: they watch the process (GC, the event loop) for good.
      collectDefaultMetrics({ register: this.registry });
      this.processMetrics = true;
    }
    const text = await this.registry.metrics();
    // Stryker disable next-line ConditionalExpression: a client that left while the metrics were collected; what is written to its closed response is dropped either way
    if (res.destroyed) return;
    res.writeHead(200, { 'Content-Type': this.registry.contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
    res.end(text);
  }
}
