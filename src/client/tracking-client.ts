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
  validate,
  versionFor,
  type Message,
  type MessengerIncoming,
  type MessengerOutgoing,
  type MessengerRequestData,
  type MessengerResponseBody,
  type PlatformKind,
  type RecordType,
  type TrackingEvent,
  type ValidationIssue,
} from '../spec/index.js';
import { DeliveryQueue, type QueuedRecord, type TrackResult } from './delivery-queue.js';
import { TrackingDeliveryError, TrackingError, TrackingValidationError, type DeliveryFailureReason } from './errors.js';
import { debugFromEnv, SafeLogger, stderrLogger, silentLogger } from './logger.js';
import { resolveOptions, type ResolvedOptions, type TrackedRecord, type TrackingClientOptions } from './options.js';
import { UndeliveredStore, type PersistedRecord } from './persistence.js';
import { redactJson, redactUrl, safeCause, scrub } from './redact.js';
import type { Transport } from './transport.js';
import { createNodeHttpTransport } from './transports/node-http.js';

/** What `stats()` reports. */
export interface TrackingStats {
  /** Records waiting: queued or backing off before a retry (not in flight). */
  queued: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Records the endpoint accepted. */
  delivered: number;
  /** Retries made (attempts after a record's first). */
  retried: number;
  /** Records given up after being tried (refused, unauthorized, out of retries or time, or at the close deadline). */
  failed: number;
  /** Records refused without being tried: queue full, or logged after `close()`. */
  dropped: number;
  /** Records saved to `persistDir` for a later client to send. */
  persisted: number;
}

/** What `close()` reports. */
export interface CloseResult {
  /** Records still pending at the deadline, now given up with reason `close-deadline`. */
  abandoned: number;
  stats: TrackingStats;
}

/** Log methods of the sms, universal and direct-message platforms (generic message shape). */
export interface GenericTracker {
  /** The platform value sent as `platform`. */
  readonly platform: string;
  /**
   * Logs a message from the user to the bot. Resolves when the endpoint accepted it; rejects at once
   * with `TrackingValidationError` when it breaks the spec (nothing is sent), or later with
   * `TrackingDeliveryError` when it is given up. An ignored promise never becomes an unhandled rejection.
   */
  logIncoming(message: Message): Promise<TrackResult>;
  /** Logs a message from the bot to the user. Settles as `logIncoming` does. */
  logOutgoing(message: Message): Promise<TrackResult>;
}

/** Log methods of the messenger platform. */
export interface MessengerTracker {
  readonly platform: string;
  /** Logs the webhook payload exactly as the messenger platform delivered it (with an optional intent on each message). Settles as `GenericTracker.logIncoming`. */
  logIncoming(payload: MessengerIncoming): Promise<TrackResult>;
  /**
   * Logs what the bot sent: the request data it posted to the platform (`uri`, `method`, `json`,
   * optionally `qs` and `intent`) and the platform's reply. Settles as `GenericTracker.logIncoming`.
   */
  logOutgoing(requestData: MessengerRequestData & { intent?: MessengerOutgoing['intent'] }, responseBody?: MessengerResponseBody): Promise<TrackResult>;
}

/** Options of `logEvent`. */
export interface LogEventOptions {
  /** The platform to send the event on. Default: messenger for a shareEvent, direct-message for every other type. */
  platform?: PlatformKind;
}

const noop = () => undefined;

/** A promise already marked as handled, so that ignoring it never raises an unhandled rejection. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(noop);
  return promise;
}

const OVERSIZE_SAFE_FACTOR = 3; // a UTF-16 code unit is at most 3 UTF-8 bytes

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
  private readonly hooks: Pick<TrackingClientOptions, 'redact' | 'ignoreUsers' | 'beforeSend' | 'onError'>;
  private readonly ignoredUsers: ReadonlySet<string> | undefined;
  private readonly transport: Transport;
  private readonly queue: DeliveryQueue;
  private readonly log: SafeLogger;
  /** Tracking URL and report label of each platform kind and record type. */
  private readonly targets = new Map<string, Map<string, { url: string; label: string }>>();
  private readonly reportWindows = new Map<string, { at: number; suppressed: number }>();
  private deferred: (() => void)[] = [];
  private deferredScheduled = false;
  private closing: Promise<CloseResult> | undefined;
  /** Set by `close()` once running turns have ended: from then on records are refused. */
  private refusing = false;
  private runningTurns = 0;
  private turnsEnded: (() => void) | undefined;
  private keyProblemReported = false;
  /** The API key and the access tokens seen in messenger records: scrubbed from every report. */
  private readonly secrets: string[];
  private readonly store: UndeliveredStore | undefined;
  /** Stops a replay under way, saving back what it has not queued yet. */
  private stopReplay: (() => void) | undefined;
  private readonly signalHandlers = new Map<NodeJS.Signals, () => void>();

  /**
   * @throws TrackingConfigError when the API key or base URL is missing (naming the environment
   * variable to set), a placeholder, or an option is out of range.
   */
  constructor(options: TrackingClientOptions = {}) {
    this.options = resolveOptions(options);
    this.hooks = { redact: options.redact, ignoreUsers: options.ignoreUsers, beforeSend: options.beforeSend, onError: options.onError };
    this.ignoredUsers = Array.isArray(options.ignoreUsers) ? new Set(options.ignoreUsers as string[]) : undefined;
    const env = options.env ?? process.env;
    const debug = options.debug ?? debugFromEnv(env);
    const target = options.logger === false ? silentLogger : (options.logger ?? stderrLogger(debug ? 'debug' : 'info'));
    const apiKey = this.options.apiKey;
    this.secrets = [apiKey];
    this.log = new SafeLogger(target, () => this.secrets, debug);
    this.transport = options.transport ?? createNodeHttpTransport({ maxSockets: this.options.maxConcurrency });
    this.store = options.persistDir === undefined ? undefined : new UndeliveredStore(options.persistDir, this.options.maxPersistBytes);
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
      onGiveUp: (error, record) => this.report(error, record.label),
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
    if (this.store !== undefined) this.replay(this.store);
    if (options.closeOnSignals) this.listenForSignals(options.closeOnSignals === true ? ['SIGTERM', 'SIGINT'] : options.closeOnSignals);
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
    const target = this.targets.get(platform)?.get(type);
    if (target === undefined) {
      return this.refuse(new TrackingValidationError('record', [{ path: 'platform', expected: `one of ${PLATFORM_KINDS.join(', ')}`, received: String(platform) }]), platform, type, withResult);
    }
    if (this.refusing) {
      this.queue.counters.dropped++;
      return this.refuse(new TrackingDeliveryError('client-closed', `The ${target.label} record was logged after close(); it was not sent. Log records before closing the client.`), platform, type, withResult);
    }
    let record: TrackedRecord = { type, platform, body };
    let issues = this.validate(record);
    if (issues.length > 0) return this.refuse(new TrackingValidationError(`The ${target.label} record`, issues), platform, type, withResult);

    if (platform === 'messenger' && type === 'outgoing') this.rememberToken(record.body);
    const userId = userIdOf(record);
    if (this.isIgnored(userId, record)) return withResult ? Promise.resolve({ status: 'skipped', reason: 'ignored-user' }) : undefined;
    if (this.hooks.redact !== undefined || this.hooks.beforeSend !== undefined) {
      try {
        if (this.hooks.redact !== undefined) record = this.hooks.redact(record) ?? record;
        if (this.hooks.beforeSend !== undefined) {
          const result = this.hooks.beforeSend(record);
          if (result === null) return withResult ? Promise.resolve({ status: 'skipped', reason: 'dropped-by-before-send' }) : undefined;
          record = result ?? record;
        }
      } catch (error) {
        return this.refuse(new TrackingValidationError(`The ${target.label} record`, [{ path: '(hook)', expected: 'redact/beforeSend to return a record', received: `an error (${(error as Error)?.message ?? error})` }]), platform, type, withResult);
      }
      issues = this.validate(record);
      if (issues.length > 0) return this.refuse(new TrackingValidationError(`The ${target.label} record (after redact/beforeSend)`, issues), platform, type, withResult);
    }

    let json: string;
    try {
      json = JSON.stringify(record.body);
    } catch (error) {
      return this.refuse(new TrackingValidationError(`The ${target.label} record`, [{ path: '(root)', expected: 'JSON-serializable data (no cycles, no BigInt)', received: (error as Error).name }]), platform, type, withResult);
    }
    if (json.length * OVERSIZE_SAFE_FACTOR > this.options.maxBodyBytes && Buffer.byteLength(json) > this.options.maxBodyBytes) {
      return this.refuse(new TrackingValidationError(`The ${target.label} record`, [{ path: '(root)', expected: `at most ${this.options.maxBodyBytes} bytes of JSON (maxBodyBytes)`, received: `${Buffer.byteLength(json)} bytes` }]), platform, type, withResult);
    }
    if (this.log.debugEnabled) this.log.debug({ url: redactUrl(target.url), body: redactJson(json) }, `queued ${target.label} record`);

    return this.enqueue(platform, type, json, userId ?? '', withResult);
  }

  /**
   * Queues a validated, serialized record; when the queue is full, saves it to disk or drops it.
   * With `withResult` false, no promise is made and `undefined` is returned.
   */
  private enqueue(platform: PlatformKind, type: RecordType, json: string, laneKey: string, withResult: true): Promise<TrackResult>;
  private enqueue(platform: PlatformKind, type: RecordType, json: string, laneKey: string, withResult: boolean): Promise<TrackResult> | undefined;
  private enqueue(platform: PlatformKind, type: RecordType, json: string, laneKey: string, withResult: boolean): Promise<TrackResult> | undefined {
    const target = this.targets.get(platform)!.get(type)!;
    // Checked before a queue entry and its promise exist: a record refused here allocates as
    // little as possible (see bench/README.md, "endpoint down").
    if (this.queue.isFull) {
      const full = `The tracking queue is full (maxQueueSize ${this.options.maxQueueSize})`;
      const persisted = this.store !== undefined && this.store.save([{ platform, type, body: json }]) === 1;
      if (persisted) this.queue.counters.persisted++;
      else this.queue.counters.dropped++;
      const refusal = () =>
        persisted
          ? new TrackingDeliveryError('persisted', `${full}; the ${target.label} record was saved to persistDir and a client started with the same persistDir will send it.`)
          : new TrackingDeliveryError('queue-full', `${full}; the ${target.label} record was dropped. The endpoint may be down or slow; raise maxQueueSize, set persistDir, or check TRACKING_BASE_URL.`);
      if (!withResult) {
        this.reportLazily(persisted ? 'persisted' : 'queue-full', target.label, refusal);
        return undefined;
      }
      const error = refusal();
      const refused = handled(Promise.reject(error));
      this.report(error, target.label);
      return refused;
    }
    if (!withResult) {
      this.queue.enqueue({ url: target.url, body: json, laneKey, label: target.label, platform, type, resolve: noop, reject: noop });
      return undefined;
    }
    let queued!: QueuedRecord;
    const promise = new Promise<TrackResult>((resolve, reject) => {
      queued = { url: target.url, body: json, laneKey, label: target.label, platform, type, resolve, reject };
    });
    this.queue.enqueue(queued);
    return handled(promise);
  }

  /**
   * Re-sends what an earlier process saved to `persistDir`: a batch at a time, only while the
   * queue has room, so a large backlog neither floods the endpoint nor crowds out live records.
   * The files are deleted once every record in them has settled (given-up ones are saved again).
   */
  private replay(store: UndeliveredStore): void {
    const { records, release } = store.claim();
    if (records.length === 0) {
      release();
      return;
    }
    this.log.info({ records: records.length }, `re-sending ${records.length} records saved in persistDir by an earlier process`);
    let next = 0;
    let unsettled = records.length;
    const settledOne = () => {
      if (--unsettled === 0) release();
    };
    const batch = Math.max(1, Math.min(100, Math.floor(this.options.maxQueueSize / 4)));
    let timer: NodeJS.Timeout | undefined;
    this.stopReplay = () => {
      clearTimeout(timer);
      this.stopReplay = undefined;
      // What has not been queued yet goes back to disk untouched.
      const rest = records.slice(next);
      const saved = store.save(rest);
      if (saved < rest.length) this.log.warn({ records: rest.length - saved }, `${rest.length - saved} saved records could not be saved again (maxPersistBytes)`);
      unsettled -= rest.length;
      next = records.length;
      if (unsettled === 0) release();
    };
    const tick = () => {
      const room = this.options.maxQueueSize - this.queue.size;
      const end = Math.min(records.length, next + Math.min(batch, Math.max(0, room - batch)));
      for (; next < end; next++) {
        const record = records[next];
        const userId = safeUserId(record);
        this.enqueue(record.platform, record.type, record.body, userId, true).then(settledOne, settledOne);
      }
      if (next < records.length) timer = setTimeout(tick, 100);
      else this.stopReplay = undefined;
    };
    timer = setTimeout(tick, 0);
  }

  private listenForSignals(signals: readonly NodeJS.Signals[]): void {
    for (const signal of signals) {
      const handler = () => {
        for (const [s, h] of this.signalHandlers) process.off(s, h);
        this.signalHandlers.clear();
        // Ours runs first (prepended), so every listener of the application is still registered
        // here, `once` ones included: counted now, not after close() (when they are gone).
        const applicationListens = process.listenerCount(signal) > 0;
        this.log.info({ signal }, `${signal}: delivering pending records before exit`);
        void this.close().then((result) => {
          const { stats } = result;
          const lost = result.abandoned;
          const line = `${signal}: tracking closed: ${stats.delivered} delivered, ${stats.failed} given up, ${stats.dropped} dropped, ${stats.persisted} saved to persistDir, ${lost} abandoned at the deadline`;
          if (lost > 0 || stats.failed > 0 || stats.dropped > 0) this.log.warn({ ...stats, abandoned: lost }, line);
          else this.log.info({ ...stats }, line);
          // Let the signal take its course, unless the application listens for it itself.
          if (!applicationListens) process.kill(process.pid, signal);
        });
      };
      this.signalHandlers.set(signal, handler);
      process.prependOnceListener(signal, handler);
    }
  }

  /**
   * Runs `task` off the caller's path: on the next turn of the event loop, before the next
   * delivery round. `flush()` and `close()` run pending tasks first. The middleware uses this to
   * keep mapping and validation out of a bot's turn. A task that throws is reported, never rethrown.
   */
  defer(task: () => void): void {
    if (this.refusing) {
      this.queue.counters.dropped++;
      this.report(new TrackingDeliveryError('client-closed', 'A record was logged after close(); it was not sent. Close the client after the bot stops taking turns.'), 'deferred');
      return;
    }
    if (this.deferred.length + this.queue.size >= this.options.maxQueueSize) {
      this.queue.counters.dropped++;
      this.reportLazily('queue-full', 'deferred', () => new TrackingDeliveryError('queue-full', `The tracking queue is full (maxQueueSize ${this.options.maxQueueSize}); a record was dropped.`));
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
    await this.queue.flush();
  }

  /**
   * Marks the start of a bot turn (or any unit of work) whose records `close()` should not cut
   * off: `close()` lets the turns already running finish, for up to half its deadline, before it
   * stops taking records. Returns the function that ends the turn (calling it twice is harmless).
   * Once `close()` has begun, new turns are not waited for. The middleware calls this for you.
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
      this.stopReplay?.();
      this.closing = this.shutdown(timeoutMs);
    }
    return this.closing;
  }

  /** Counts of records by state. */
  stats(): TrackingStats {
    const inFlight = this.queue.inFlightCount;
    // After close() gave up at its deadline, requests of given-up records may still be in flight: never count them twice.
    return { queued: Math.max(0, this.queue.size - inFlight) + this.deferred.length, inFlight, ...this.queue.counters };
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
    for (const [s, h] of this.signalHandlers) process.off(s, h);
    this.signalHandlers.clear();
    let abandoned = 0;
    if (outcome === 'deadline') {
      abandoned = this.queue.abandon('close-deadline', `close() reached its deadline (${timeoutMs} ms) before this record could be delivered.`);
    }
    this.flushReportWindows();
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
        this.report(error instanceof TrackingError ? error : new TrackingError(`A deferred tracking task failed: ${(error as Error)?.message ?? error}`), 'deferred');
      }
    }
  }

  private rememberToken(body: unknown): void {
    const token = (body as MessengerOutgoing).qs?.access_token;
    if (typeof token === 'string' && token.length > 0 && !this.secrets.includes(token) && this.secrets.length < 64) this.secrets.push(token);
  }

  private genericTracker(kind: 'sms' | 'universal' | 'directMessage'): GenericTracker {
    return {
      platform: platformValue(kind, this.options.platformNames),
      logIncoming: (message) => this.track(kind, 'incoming', message),
      logOutgoing: (message) => this.track(kind, 'outgoing', message),
    };
  }

  private validate(record: TrackedRecord): ValidationIssue[] {
    return validate(record.platform, record.type, record.body, { allowReferralEvent: this.options.allowReferralEvent });
  }

  private isIgnored(userId: string | undefined, record: TrackedRecord): boolean {
    const ignore = this.hooks.ignoreUsers;
    if (ignore === undefined || userId === undefined) return false;
    if (this.ignoredUsers !== undefined) return this.ignoredUsers.has(userId);
    try {
      return (ignore as (id: string, r: TrackedRecord) => boolean)(userId, record) === true;
    } catch {
      return false;
    }
  }

  private refuse(error: TrackingError, platform: PlatformKind, type: RecordType, withResult = true): Promise<TrackResult> | undefined {
    this.report(error, `${platform} ${type}`, { platform, type });
    return withResult ? handled(Promise.reject(error)) : undefined;
  }

  /**
   * `report` for a refusal nobody may get to see: without `onError`, a warning the rate limit
   * would hold back only counts, and the error is never made. A burst of drops then costs no
   * error objects (each captures a stack trace).
   */
  private reportLazily(reason: DeliveryFailureReason, label: string, refusal: () => TrackingError): void {
    if (this.hooks.onError === undefined && reason !== 'unauthorized') {
      const window = this.reportWindows.get(reason);
      if (window !== undefined && Date.now() - window.at < 10_000) {
        window.suppressed++;
        return;
      }
    }
    this.report(refusal(), label);
  }

  /** Every refused or given-up record ends here: the user's onError, or a rate-limited warning. */
  private report(error: TrackingError, label: string, record?: { platform: PlatformKind; type: RecordType }): void {
    if (this.hooks.onError !== undefined) {
      try {
        this.hooks.onError(error, record);
      } catch {
        // onError must not break delivery.
      }
      return;
    }
    const reason = error instanceof TrackingDeliveryError ? error.reason : error.name;
    if (reason === ('unauthorized' satisfies DeliveryFailureReason)) {
      if (this.keyProblemReported) return;
      this.keyProblemReported = true;
      this.log.error({ status: (error as TrackingDeliveryError).status }, error.message);
      return;
    }
    const now = Date.now();
    const window = this.reportWindows.get(reason);
    if (window !== undefined && now - window.at < 10_000) {
      window.suppressed++;
      return;
    }
    const more = window !== undefined && window.suppressed > 0 ? ` (${window.suppressed} more like it since the last report)` : '';
    this.reportWindows.set(reason, { at: now, suppressed: 0 });
    this.log.warn({ reason, record: label }, `${error.message}${more}`);
  }

  private flushReportWindows(): void {
    for (const [reason, window] of this.reportWindows) {
      if (window.suppressed > 0) this.log.warn({ reason, count: window.suppressed }, `${window.suppressed} more records were refused or given up (${reason}) since the last report`);
    }
    this.reportWindows.clear();
  }
}

function safeUserId(record: PersistedRecord): string {
  try {
    return userIdOf({ platform: record.platform, type: record.type, body: JSON.parse(record.body) }) ?? '';
  } catch {
    return '';
  }
}

/** The end user a record belongs to: it decides the delivery lane (order per user) and `ignoreUsers`. */
export function userIdOf(record: TrackedRecord): string | undefined {
  const body = record.body as Record<string, any>;
  if (record.type !== 'event' && record.platform === 'messenger') {
    return record.type === 'incoming' ? body.entry?.[0]?.messaging?.[0]?.sender?.id : body.json?.recipient?.id;
  }
  return body.userId;
}
