/**
 * The three middlewares: `ReceiveMiddleware` records what users send, `SendMiddleware` what the
 * bot sends, `TrackingMiddleware` both. Add one to any adapter (CloudAdapter,
 * BotFrameworkAdapter, TestAdapter); proactive messages sent through the adapter are recorded too.
 */
import type { TurnContextLike } from './sdk-types.js';
import type { TrackingClient } from '../client/index.js';
import { middlewareOptions, type TrackingMiddlewareOptions } from './options.js';
import { buttonMemoryFor, RecordLogger } from './record-logger.js';
import { watchIncoming, watchOutgoing } from './watch-turn.js';

/** What the middlewares' constructors take: a client, options, or nothing (a client from the environment). */
export type TrackingMiddlewareInit = TrackingClient | TrackingMiddlewareOptions;

function finish(end: (() => void) | undefined, records: RecordLogger): void {
  if (end === undefined) return;
  try {
    end();
  } catch (error) {
    records.reportInternal(error);
  }
}

/** What the three middlewares share: the client records go through. Not for subclassing outside this package. */
export abstract class BaseMiddleware {
  /** The client records go through. Close it at shutdown: `await middleware.client.close()`. */
  readonly client: TrackingClient;
  /** @internal Maps activities to records off the turn. */
  protected readonly records: RecordLogger;

  /**
   * @param init A `TrackingClient`, options, or nothing: a client is then built from the
   * environment (`TRACKING_API_KEY`, `TRACKING_BASE_URL`).
   * @throws TrackingConfigError when a client has to be built and the key or URL is missing or invalid.
   */
  constructor(init?: TrackingMiddlewareInit, rememberButtons = false) {
    const { client, options } = middlewareOptions(init);
    this.client = client;
    this.records = new RecordLogger(client, options, rememberButtons ? buttonMemoryFor(options) : undefined);
  }

  /**
   * The middleware contract of both SDKs (`adapter.use(middleware)`): tracks the turn, calls
   * `next()`, and returns what it returns. Never throws into the turn; the bot's errors propagate unchanged.
   */
  abstract onTurn(context: TurnContextLike, next: () => Promise<void>): Promise<void>;

  /** @internal Tells the client a turn is running, so that `close()` lets it finish before it stops taking records. */
  protected beginTurn(): () => void {
    try {
      return this.client.beginTurn();
    } catch (error) {
      this.records.reportInternal(error);
      return noop;
    }
  }
}

const noop = (): void => undefined;

/**
 * Records each incoming message (and, with `trackEventActivities`, each incoming event activity)
 * with the intent set for it. Other activity types are not recorded. The record is queued at the
 * turn's first outgoing message or at the end of the turn, also when the bot throws; the bot's
 * error propagates unchanged. Tracking never waits on the network and never throws into the turn.
 *
 * @example
 * adapter.use(new ReceiveMiddleware()); // TRACKING_API_KEY, TRACKING_BASE_URL from env
 */
export class ReceiveMiddleware extends BaseMiddleware {
  async onTurn(context: TurnContextLike, next: () => Promise<void>): Promise<void> {
    const endTurn = this.beginTurn();
    const end = watchIncoming(context, this.records);
    try {
      return await next();
    } finally {
      finish(end, this.records);
      endTurn();
    }
  }
}

/**
 * Records each message the bot sends, once the channel accepted it (messenger records carry the
 * channel's message id). Typing, trace and other non-message activities are not recorded. The
 * ResourceResponses flow back unchanged; a failed send is not recorded and its error propagates
 * unchanged. Tracking never waits on the network and never throws into the turn.
 */
export class SendMiddleware extends BaseMiddleware {
  async onTurn(context: TurnContextLike, next: () => Promise<void>): Promise<void> {
    const endTurn = this.beginTurn();
    try {
      watchOutgoing(context, this.records);
      return await next();
    } finally {
      endTurn();
    }
  }
}

/**
 * `ReceiveMiddleware` and `SendMiddleware` in one, sharing one client. Because it sees both
 * directions it also recognises clicks on buttons the bot offered (`rememberButtons`).
 *
 * @example
 * const tracking = new TrackingMiddleware({ trackEventActivities: true });
 * adapter.use(tracking);
 * process.on('SIGTERM', () => tracking.client.close());
 */
export class TrackingMiddleware extends BaseMiddleware {
  constructor(init?: TrackingMiddlewareInit) {
    super(init, true);
  }

  async onTurn(context: TurnContextLike, next: () => Promise<void>): Promise<void> {
    const endTurn = this.beginTurn();
    const end = watchIncoming(context, this.records);
    try {
      watchOutgoing(context, this.records);
      return await next();
    } finally {
      finish(end, this.records);
      endTurn();
    }
  }
}
