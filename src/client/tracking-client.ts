/**
 * `TrackingClient`: validates records against the spec, runs the user's hooks, and hands them to
 * the delivery queue. Log calls never block: they return a promise at once.
 */
import {
  defaultEventPlatform,
  platformValue,
  PLATFORM_KINDS,
  RECORD_TYPES,
  trackUrl,
  versionFor,
  type PlatformKind,
  type RecordType,
  type TrackingEvent,
} from '../protocol/index.js';
import type { CloseResult, GenericTracker, LogEventOptions, MessengerTracker, TrackingStats } from './client-types.js';
import { DeliveryQueue, type QueuedRecord, type SkippedResult, type TrackResult } from './delivery-queue.js';
import { TrackingDeliveryError, TrackingError, TrackingValidationError } from './errors.js';
import { debugFromEnv, SafeLogger, stderrLogger, silentLogger } from './logger.js';
import { isEnabled, resolveOptions, type ResolvedOptions, type TrackingClientOptions } from './options.js';
import { UndeliveredStore } from './persistence.js';
import { RecordBuilder } from './record-builder.js';
import { redactJson, redactUrl, safeCause, scrub } from './redact.js';
import { replaySaved, type Replay } from './replay.js';
import { Reporter } from './reporter.js';
import { closeOnSignals, logClosed } from './signals.js';
import type { Transport } from './transport.js';
import { createNodeHttpTransport } from './transports/node-http.js';

export type { CloseResult, GenericTracker, LogEventOptions, MessengerTracker, TrackingStats } from './client-types.js';
export { userIdOf } from './records.js';

const noop = () => undefined;

/** Clients with records pending when the process runs out of work: one `beforeExit` listener for all of them. */
const exitWatchers = new Set<() => void>();
function onBeforeExit(): void {
  for (const watcher of [...exitWatchers]) watcher();
}
/** Calls `watcher` when the process runs out of work; returns the function that stops it. */
function watchExit(watcher: () => void): () => void {
  if (exitWatchers.size === 0) process.on('beforeExit', onBeforeExit);
  exitWatchers.add(watcher);
  return () => {
    exitWatchers.delete(watcher);
    if (exitWatchers.size === 0) process.off('beforeExit', onBeforeExit);
  };
}

const DISABLED: SkippedResult = Object.freeze({ status: 'skipped', reason: 'disabled' });

/** A promise already marked as handled, so that ignoring it never raises an unhandled rejection. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(noop);
  return promise;
}

/**
 * Sends conversation records to the tracking endpoint.
 *
 * @example
 * const client = new TrackingClient(); // TRACKING_API_KEY and TRACKING_BASE_URL from env
 * await client.sms.logIncoming({ text: 'hi', userId: '+15550100' });
 * await client.close();
 */
export class TrackingClient {
  /** sms platform. */
  readonly sms: GenericTracker;
  /** universal platform: surveys, tickets, contact-center and chat-archive data. */
  readonly universal: GenericTracker;
  /** The direct-message platform (`platformNames.directMessage`, default `twitter`). */
  readonly directMessage: GenericTracker;
  /** The messenger platform (`platformNames.messenger`, default `facebook`). */
  readonly messenger: MessengerTracker;

  private readonly options: ResolvedOptions;
  private readonly builder: RecordBuilder;
  private readonly reporter: Reporter;
  private readonly transport: Transport;
  private readonly queue: DeliveryQueue;
  private readonly log: SafeLogger;
  /** Tracking URL and report label of each platform kind and record type. */
  private readonly targets = new Map<string, Map<string, { url: string; label: string }>>();
  private deferred: (() => void)[] = [];
  private deferredScheduled = false;
  private closing: Promise<CloseResult> | undefined;
  /** Set by `close()` once running turns have ended: from then on records are refused. */
  private refusing = false;
  private runningTurns = 0;
  private turnsEnded: (() => void) | undefined;
  /** The API key and the access tokens seen in messenger records: scrubbed from every report. */
  private readonly secrets: string[];
  private readonly seenSecrets = new Set<string>();
  private readonly store: UndeliveredStore | undefined;
  /** Stops a replay under way, saving back what it has not queued yet. */
  private replay: Replay | undefined;
  /** The error a burst of refusals shares, per reason and record kind (see `enqueue`). */
  private readonly refusals = new Map<string, { error: TrackingDeliveryError; at: number }>();
  private stopListening: (() => void) | undefined;
  /** Listens for the process running out of work while records are pending (see `guardExit`). */
  private exitGuard: (() => void) | undefined;
  /** `false` when tracking is off (`enabled: false` or env `TRACKING_ENABLED=false`): nothing is recorded or sent. */
  private readonly enabled: boolean;

  /**
   * @throws TrackingConfigError when the API key or base URL is missing (naming the environment
   * variable to set), a placeholder, or an option is out of range.
   */
  constructor(options: TrackingClientOptions = {}) {
    this.enabled = isEnabled(options);
    // Off: no key or URL is needed, and none is used (nothing is ever sent).
    this.options = resolveOptions(this.enabled ? options : { ...options, apiKey: 'tracking-disabled', baseUrl: 'http://127.0.0.1' });
    const env = options.env ?? process.env;
    const debug = options.debug ?? debugFromEnv(env);
    const target = options.logger === false ? silentLogger : (options.logger ?? stderrLogger(debug ? 'debug' : 'info'));
    const apiKey = this.options.apiKey;
    this.secrets = [apiKey];
    this.log = new SafeLogger(target, () => this.secrets, debug);
    this.reporter = new Reporter(options.onError, this.log);
    this.builder = new RecordBuilder(this.options, options, (token) => {
      // Every token seen is remembered (no cap): one echoed back later must never appear raw.
      if (!this.seenSecrets.has(token)) {
        this.seenSecrets.add(token);
        this.secrets.push(token);
      }
    });
    this.transport = options.transport ?? createNodeHttpTransport({ maxSockets: this.options.maxConcurrency });
    this.store = options.persistDir === undefined || !this.enabled ? undefined : new UndeliveredStore(options.persistDir, this.options.maxPersistBytes);
    for (const kind of PLATFORM_KINDS) {
      for (const type of RECORD_TYPES) {
        const platform = platformValue(kind, this.options.platformNames);
        const url = trackUrl(this.options.baseUrl, { platform, v: versionFor(kind, type), type, apiKey });
        if (!this.targets.has(kind)) this.targets.set(kind, new Map());
        this.targets.get(kind)!.set(type, { url, label: `${platform} ${type}` });
      }
    }
    this.queue = new DeliveryQueue(this.transport, this.options, {
      scrub: (text) => scrub(text, this.secrets),
      // A queued record carries its platform, type and body: it is a PersistedRecord as it is.
      persist: this.store === undefined ? undefined : (record) => this.store?.save([record]) === 1,
      safeCause: (error) => safeCause(error, this.secrets),
      onGiveUp: (error, record) => this.reporter.report(error, record.label),
      onAttempt: this.log.debugEnabled
        ? (record, outcome) =>
            this.log.debug(
              { url: redactUrl(record.url), attempt: outcome.attempt, status: outcome.status, error: outcome.error?.message, retryInMs: outcome.delayMs },
              `${record.label} attempt ${outcome.attempt}: ${outcome.status ?? 'no response'}`,
            )
        : undefined,
    });
    this.sms = this.genericTracker('sms');
    this.universal = this.genericTracker('universal');
    this.directMessage = this.genericTracker('directMessage');
    const messengerPlatform = platformValue('messenger', this.options.platformNames);
    this.messenger = {
      platform: messengerPlatform,
      logIncoming: (payload) => this.track('messenger', 'incoming', payload),
      logOutgoing: (requestData, responseBody) =>
        this.track('messenger', 'outgoing', responseBody === undefined ? requestData : { ...requestData, responseBody }),
    };
    if (!this.enabled) {
      this.log.info({}, 'Tracking is off (enabled: false or TRACKING_ENABLED=false): nothing is recorded or sent.');
      return;
    }
    if (this.store !== undefined) {
      this.replay = replaySaved(this.store, {
        log: this.log,
        maxQueueSize: this.options.maxQueueSize,
        queued: () => this.queue.size,
        enqueue: (record, userId) => this.enqueue(record.platform, record.type, record.body, userId, true, true),
      });
    }
    if (options.closeOnSignals) {
      this.stopListening = closeOnSignals(options.closeOnSignals === true ? ['SIGTERM', 'SIGINT'] : options.closeOnSignals, () => this.close(), this.log);
    }
  }

  /** The wire value of a platform kind, as configured (`platformNames`). */
  platformValue(kind: PlatformKind): string {
    return platformValue(kind, this.options.platformNames);
  }

  /**
   * Logs an event. As in the spec's examples, a shareEvent goes on the messenger platform and
   * every other event on the direct-message platform, unless `options.platform` says otherwise.
   * Settles as `GenericTracker.logIncoming` does.
   */
  logEvent(event: TrackingEvent, options: LogEventOptions = {}): Promise<TrackResult> {
    const type = (event as { type?: unknown } | null)?.type;
    const platform = options.platform ?? defaultEventPlatform(typeof type === 'string' ? type : '');
    return this.track(platform, 'event', event);
  }

  /**
   * Low-level: validates and queues one record of `type` on `platform`. The trackers and
   * `logEvent` call this; use it when the platform is only known at run time.
   */
  track(platform: PlatformKind, type: RecordType, body: unknown): Promise<TrackResult> {
    return this.submit(platform, type, body, true);
  }

  /**
   * `track` for callers that never use the outcome, such as the middleware's deferred tasks:
   * nothing is returned and no promise is made, which saves CPU and memory for every queued
   * record. A refused or given-up record is counted and reported through `onError` (or the
   * logger) exactly as with `track`.
   */
  trackAndForget(platform: PlatformKind, type: RecordType, body: unknown): void {
    this.submit(platform, type, body, false);
  }

  /** `track`; with `withResult` false, no promise is made and `undefined` is returned. */
  private submit(platform: PlatformKind, type: RecordType, body: unknown, withResult: true): Promise<TrackResult>;
  private submit(platform: PlatformKind, type: RecordType, body: unknown, withResult: boolean): Promise<TrackResult> | undefined;
  private submit(platform: PlatformKind, type: RecordType, body: unknown, withResult: boolean): Promise<TrackResult> | undefined {
    if (!this.enabled) return withResult ? Promise.resolve(DISABLED) : undefined;
    const target = this.targets.get(platform)?.get(type);
    if (target === undefined) {
      return this.refuse(new TrackingValidationError('record', [{ path: 'platform', expected: `one of ${PLATFORM_KINDS.join(', ')}`, received: String(platform) }]), platform, type, withResult);
    }
    if (this.refusing) {
      this.queue.counters.dropped++;
      return this.refuse(new TrackingDeliveryError('client-closed', `The ${target.label} record was logged after close(); it was not sent. Log records before closing the client.`), platform, type, withResult);
    }
    const built = this.builder.build(platform, type, body, target.label);
    if (built.status === 'refused') return this.refuse(built.error, platform, type, withResult);
    if (built.status === 'skipped') return withResult ? Promise.resolve(built.result) : undefined;
    const { json, userId } = built;
    if (this.log.debugEnabled) this.log.debug({ url: redactUrl(target.url), body: redactJson(json) }, `queued ${target.label} record`);

    return this.enqueue(platform, type, json, userId, withResult);
  }

  /**
   * Queues a validated, serialized record; when the queue is full, saves it to disk or drops it.
   * With `withResult` false, no promise is made and `undefined` is returned.
   */
  private enqueue(platform: PlatformKind, type: RecordType, json: string, laneKey: string, withResult: true, saved?: boolean): Promise<TrackResult>;
  private enqueue(platform: PlatformKind, type: RecordType, json: string, laneKey: string, withResult: boolean, saved?: boolean): Promise<TrackResult> | undefined;
  private enqueue(platform: PlatformKind, type: RecordType, json: string, laneKey: string, withResult: boolean, saved = false): Promise<TrackResult> | undefined {
    const target = this.targets.get(platform)!.get(type)!;
    // Checked before a queue entry and its promise exist: a record refused here allocates as
    // little as possible (see bench/README.md, "endpoint down").
    const held = this.replay?.held() ?? 0;
    if (this.queue.isFull || (held > 0 && this.queue.size + held >= this.options.maxQueueSize)) {
      const full = `The tracking queue is full (maxQueueSize ${this.options.maxQueueSize})`;
      const persisted = this.store !== undefined && this.store.save([{ platform, type, body: json }]) === 1;
      if (persisted) this.queue.counters.persisted++;
      else this.queue.counters.dropped++;
      const refusal = () =>
        persisted
          ? new TrackingDeliveryError('persisted', `${full}; the ${target.label} record was saved to persistDir and a client started with the same persistDir will send it.`)
          : new TrackingDeliveryError('queue-full', `${full}; the ${target.label} record was dropped. The endpoint may be down or slow; raise maxQueueSize, set persistDir, or check TRACKING_BASE_URL.`);
      if (!withResult) {
        this.reporter.reportLazily(persisted ? 'persisted' : 'queue-full', target.label, refusal);
        return undefined;
      }
      // A burst past the cap shares one error per kind of refusal for a second: a caller that
      // keeps every promise then holds a promise per record, not an error with a stack trace.
      const key = `${persisted ? 'persisted' : 'queue-full'} ${target.label}`;
      const now = Date.now();
      let cached = this.refusals.get(key);
      if (cached === undefined || now - cached.at > 1_000) {
        cached = { error: refusal(), at: now };
        this.refusals.set(key, cached);
      }
      const refused = handled(Promise.reject(cached.error));
      this.reporter.report(cached.error, target.label);
      return refused;
    }
    if (this.exitGuard === undefined) this.guardExit();
    // While saved records of this user are still to be re-sent, a new record waits behind them.
    const push = (record: QueuedRecord): void => {
      if (saved || this.replay === undefined || !this.replay.hold(laneKey, () => this.queue.enqueue(record))) this.queue.enqueue(record);
    };
    if (!withResult) {
      push({ url: target.url, body: json, laneKey, label: target.label, platform, type, resolve: noop, reject: noop });
      return undefined;
    }
    let queued!: QueuedRecord;
    const promise = new Promise<TrackResult>((resolve, reject) => {
      queued = { url: target.url, body: json, laneKey, label: target.label, platform, type, resolve, reject };
    });
    push(queued);
    return handled(promise);
  }

  /**
   * Runs `task` off the caller's path: on the next turn of the event loop, before the next
   * delivery round. `flush()` and `close()` run pending tasks first. The middleware uses this to
   * keep mapping and validation out of a bot's turn. A task that throws is reported, never rethrown.
   * @internal The middleware's; not part of the public API.
   */
  defer(task: () => void): void {
    if (!this.enabled) return;
    if (this.refusing) {
      this.queue.counters.dropped++;
      this.reporter.report(new TrackingDeliveryError('client-closed', 'A record was logged after close(); it was not sent. Close the client after the bot stops taking turns.'), 'deferred');
      return;
    }
    if (this.deferred.length + this.queue.size >= this.options.maxQueueSize) {
      this.queue.counters.dropped++;
      this.reporter.reportLazily('queue-full', 'deferred', () => new TrackingDeliveryError('queue-full', `The tracking queue is full (maxQueueSize ${this.options.maxQueueSize}); a record was dropped.`));
      return;
    }
    this.deferred.push(task);
    if (!this.deferredScheduled) {
      this.deferredScheduled = true;
      setImmediate(() => this.runDeferred());
    }
  }

  /** Resolves once every record logged so far has been delivered or given up. Never rejects. */
  async flush(): Promise<void> {
    this.runDeferred();
    // Records held behind a user's saved ones (a replay under way) are queued as the replay goes.
    while ((this.replay?.held() ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await this.queue.flush();
  }

  /**
   * Marks the start of a bot turn (or any unit of work) whose records `close()` should not cut
   * off: `close()` lets the turns already running finish, for up to half its deadline, before it
   * stops taking records. Returns the function that ends the turn (calling it twice is harmless).
   * Once `close()` has begun, new turns are not waited for. The middleware calls this for you.
   * @internal The middleware's; not part of the public API.
   */
  beginTurn(): () => void {
    if (this.closing !== undefined) return noop;
    this.runningTurns++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.runningTurns === 0) this.turnsEnded?.();
    };
  }

  /**
   * Lets running turns finish (see `beginTurn`), stops taking records, waits up to
   * `closeTimeoutMs` (or `timeoutMs`) in all for pending ones, gives up the rest (their promises
   * reject with reason `close-deadline`, and each is reported), and frees the sockets so the
   * process can exit. Safe to call more than once. Never rejects.
   */
  close(timeoutMs: number = this.options.closeTimeoutMs): Promise<CloseResult> {
    if (this.closing === undefined) {
      this.replay?.stop();
      this.closing = this.shutdown(timeoutMs);
    }
    return this.closing;
  }

  /**
   * When the process has nothing left to do but records are still pending (waiting to be retried:
   * backoff timers do not keep the process alive), the client closes itself: it keeps trying for
   * up to `closeTimeoutMs`, gives up the rest, and says in one line what became of them. A short
   * script that never calls `close()` thus still gets its records delivered, and exits within the
   * deadline when the endpoint is down.
   */
  private guardExit(): void {
    if (this.closing !== undefined) return;
    const guard = (): void => {
      if (this.closing !== undefined) return;
      if (this.queue.size === 0) {
        // Nothing pending: stop watching until the next record.
        this.exitGuard?.();
        this.exitGuard = undefined;
        return;
      }
      void this.close().then((result) => logClosed('process exiting', result, this.log));
    };
    this.exitGuard = watchExit(guard);
  }

  /** Counts of records by state. */
  stats(): TrackingStats {
    const inFlight = this.queue.inFlightCount;
    // After close() gave up at its deadline, requests of given-up records may still be in flight: never count them twice.
    return { queued: Math.max(0, this.queue.size - inFlight) + this.deferred.length + (this.replay?.held() ?? 0), inFlight, ...this.queue.counters };
  }

  private async shutdown(timeoutMs: number): Promise<CloseResult> {
    const startedAt = performance.now();
    if (this.runningTurns > 0) {
      let wait: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.turnsEnded = resolve;
        wait = setTimeout(resolve, timeoutMs / 2);
      });
      clearTimeout(wait);
      this.turnsEnded = undefined;
    }
    this.runDeferred();
    this.refusing = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), Math.max(0, timeoutMs - (performance.now() - startedAt)));
    });
    const outcome = await Promise.race([this.queue.flush().then(() => 'flushed' as const), deadline]);
    clearTimeout(timer);
    this.stopListening?.();
    this.exitGuard?.();
    let abandoned = 0;
    if (outcome === 'deadline') {
      abandoned = this.queue.abandon('close-deadline', `close() reached its deadline (${timeoutMs} ms) before this record could be delivered.`);
    }
    this.reporter.flush();
    try {
      await this.transport.close?.();
    } catch (error) {
      this.log.warn({ error }, 'closing the transport failed');
    }
    return { abandoned, stats: this.stats() };
  }

  private runDeferred(): void {
    this.deferredScheduled = false;
    const tasks = this.deferred;
    if (tasks.length === 0) return;
    this.deferred = [];
    for (const task of tasks) {
      try {
        task();
      } catch (error) {
        this.reporter.report(error instanceof TrackingError ? error : new TrackingError(`A deferred tracking task failed: ${(error as Error)?.message ?? error}`), 'deferred');
      }
    }
  }

  private genericTracker(kind: 'sms' | 'universal' | 'directMessage'): GenericTracker {
    return {
      platform: platformValue(kind, this.options.platformNames),
      logIncoming: (message) => this.track(kind, 'incoming', message),
      logOutgoing: (message) => this.track(kind, 'outgoing', message),
    };
  }

  private refuse(error: TrackingError, platform: PlatformKind, type: RecordType, withResult = true): Promise<TrackResult> | undefined {
    this.reporter.report(error, `${platform} ${type}`, { platform, type });
    return withResult ? handled(Promise.reject(error)) : undefined;
  }
}
