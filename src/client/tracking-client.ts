/**
 * `TrackingClient`: validates records against the spec, runs the user's hooks, and hands them to
 * the delivery queue. Log calls never block: they return a promise at once. The parts it wires
 * together each have a file: record-builder.ts (checks and hooks), targets.ts (URLs), deferred.ts,
 * intake.ts (queued, held, saved or dropped), delivery-queue.ts and lanes.ts (delivery), persistence.ts and replay.ts (`persistDir`),
 * exit-guard.ts and shutdown.ts (the end of a process), reporter.ts (what the user is told).
 * About 300 lines: what is left here is the public class itself, each of its methods one the user
 * calls, and the wiring of the parts above.
 */
import { defaultEventPlatform, platformValue, PLATFORM_KINDS, type PlatformKind, type RecordType } from '../protocol/index.js';
import type { CloseResult, FlushOptions, FlushResult, GenericTracker, LogEventOptions, MessengerTracker, TrackingStats } from './client-types.js';
import { DeliveryQueue, type SkippedResult, type TrackResult } from './delivery-queue.js';
import { DeferredTasks } from './deferred.js';
import { proxyNote } from './diagnose.js';
import { TrackingConfigError, TrackingDeliveryError, TrackingError, TrackingValidationError } from './errors.js';
import { exitGuard, othersListen, type ExitGuard } from './exit-guard.js';
import { KeepAlive } from './keep-alive.js';
import { SafeLogger, stderrLogger, silentLogger } from './logger.js';
import { resolveOptions, type ResolvedOptions, type TrackingClientOptions } from './options.js';
import { handled, Intake, queueFullMessage } from './intake.js';
import { UndeliveredStore } from './persistence.js';
import { RecordBuilder } from './record-builder.js';
import { eventWithTime, messageWithTime } from './record-time.js';
import { excerpt, KnownSecrets, redactJson, redactUrl, safeCause, scrub } from './redact.js';
import { replaySaved, type Replay } from './replay.js';
import { Reporter } from './reporter.js';
import { describeCounts, kindOf, LossTally } from './tally.js';
import { shutdown } from './shutdown.js';
import { closeOnSignals, logClosed } from './signals.js';
import { Targets } from './targets.js';
import { HOLD_IN_FLIGHT, type HoldingTransport, type Transport } from './transport.js';
import { createNodeHttpTransport } from './transports/node-http.js';
import type { TrackingEventInput } from './currency.js';

export type { CloseResult, FlushOptions, FlushResult, GenericTracker, LogEventOptions, MessengerTracker, TrackingStats } from './client-types.js';
export { userIdOf } from './records.js';

const noop = () => undefined;

/** A logged body as JSON (to name an event's kind), or undefined when it cannot be serialized. */
function safeJson(body: unknown): string | undefined {
  try {
    return JSON.stringify(body);
  } catch {
    // A cycle, a BigInt, a throwing toJSON: no JSON.
  }
  return undefined;
}

const DISABLED: SkippedResult = Object.freeze({ status: 'skipped', reason: 'disabled' });

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
  private readonly targets: Targets;
  private readonly deferred: DeferredTasks;
  private closing: Promise<CloseResult> | undefined;
  /** Set by `close()` once running turns have ended: from then on records are refused. */
  private refusing = false;
  private runningTurns = 0;
  private turnsEnded: (() => void) | undefined;
  /** The API key and the access tokens seen in messenger records: scrubbed from every report. */
  private readonly secrets: KnownSecrets;
  private readonly store: UndeliveredStore | undefined;
  /** Re-sends what earlier processes saved to `persistDir`. */
  private replay: Replay | undefined;
  /** Where validated records go in: queued, held, saved or dropped (intake.ts). */
  private readonly intake: Intake;
  private stopListening: (() => void) | undefined;
  private readonly guard: ExitGuard;
  /** Holds the process open while a caller awaits `flush()` or a log call's promise (keep-alive.ts). */
  private readonly keepAlive = new KeepAlive();
  /** Counts what was not delivered, by kind, and says it (tally.ts). */
  private readonly tally: LossTally;
  /** Set by `closeOnSignals` when it takes a signal: the clients' own watch then leaves that signal to it. */
  private signalTaken = false;

  /**
   * @throws TrackingConfigError naming every missing or invalid setting at once: the API key or
   * base URL missing (naming the environment variable to set) or a placeholder, an on/off
   * environment variable that is neither (`TRACKING_ENABLED`, `TRACKING_DEBUG`), `platformNames`,
   * or a numeric option out of range.
   */
  constructor(options: TrackingClientOptions = {}) {
    this.options = resolveOptions(options);
    const { debug, apiKey } = this.options;
    // The default logger writes every level: SafeLogger passes debug entries on only with debug on.
    // Stryker disable next-line ConditionalExpression,BooleanLiteral,StringLiteral: `logger: false` left to SafeLogger would make a target whose every call throws, and SafeLogger swallows what a logger throws: silent either way; and stderrLogger given an unknown level writes every level, as at 'debug'
    const target = options.logger === false ? silentLogger : (options.logger ?? stderrLogger('debug'));
    this.secrets = new KnownSecrets(apiKey);
    this.log = new SafeLogger(target, this.secrets, debug);
    this.reporter = new Reporter(options.onError, this.log);
    this.tally = new LossTally(this.log);
    this.builder = new RecordBuilder(this.options, options, (token) => this.secrets.add(token));
    this.deferred = new DeferredTasks((error) =>
      this.reporter.report(error instanceof TrackingError ? error : new TrackingError(`A deferred tracking task failed: ${(error as Error)?.message ?? error}`), 'deferred'),
    );
    this.transport = options.transport ?? createNodeHttpTransport({ maxSockets: this.options.maxConcurrency });
    this.store = options.persistDir === undefined || !this.options.enabled ? undefined : new UndeliveredStore(options.persistDir, this.options.maxPersistBytes);
    this.targets = new Targets(this.options);
    this.guard = exitGuard({
      busy: () => this.queue.size > 0 || this.replay?.active === true,
      sending: () => this.queue.inFlightCount > 0,
      holdSending: () => {
        const hold = (this.transport as Partial<HoldingTransport>)[HOLD_IN_FLIGHT];
        if (typeof hold !== 'function') return false;
        hold.call(this.transport);
        return true;
      },
      closing: () => this.closing !== undefined,
      closeAndReport: (since) => void this.closeWithin(this.options.closeTimeoutMs, since).then((result) => logClosed('process exiting', result, this.log)),
      deadlineMs: this.options.closeTimeoutMs,
      end: {
        signal: (signal) => {
          if (this.signalTaken) {
            this.signalTaken = false;
            return true;
          }
          // With a listener of the application's, the process may go on (or close the client): the exit line says what is left, if anything.
          if (!othersListen(signal)) this.sayLeftBehind(signal);
          return false;
        },
        exit: () => this.sayLeftBehind('process exiting'),
      },
    });
    this.queue = new DeliveryQueue(this.transport, this.options, {
      scrub: (text) => scrub(text, this.secrets),
      excerpt: (text, maxChars) => excerpt(text, maxChars, this.secrets),
      // Stryker disable next-line ConditionalExpression: without a store, saveForLater saves nothing and returns false, as no persist hook does
      persist: this.store === undefined ? undefined : (record) => this.intake.saveForLater(record.target, record.text, record.origin, record.seq, record.key),
      safeCause: (error) => safeCause(error, this.secrets),
      onQuiet: () => {
        this.guard.quiet();
        this.tally.quiet();
      },
      onGiveUp: (error, record) => {
        this.reporter.report(error, record.label);
        this.tally.count(error.reason === 'persisted' ? 'saved to persistDir' : 'given up', kindOf(record.type, record.text));
      },
      proxyNote: proxyNote(this.options.baseUrl, options.env ?? process.env, options.transport === undefined),
      onAttempt: this.log.debugEnabled
        ? (record, outcome) =>
            this.log.debug(
              { url: redactUrl(record.url), attempt: outcome.attempt, status: outcome.status, error: outcome.error?.message, retryInMs: outcome.delayMs },
              `${record.label} attempt ${outcome.attempt}: ${outcome.status ?? 'no response'}`,
            )
        : undefined,
    });
    this.intake = new Intake({
      queue: this.queue,
      reporter: this.reporter,
      store: this.store,
      maxQueueSize: this.options.maxQueueSize,
      replay: () => this.replay,
      onQueued: () => this.guard.arm(),
      keepAlive: this.keepAlive,
      tally: this.tally,
    });
    this.sms = this.genericTracker('sms');
    this.universal = this.genericTracker('universal');
    this.directMessage = this.genericTracker('directMessage');
    this.messenger = {
      platform: platformValue('messenger', this.options.platformNames),
      logIncoming: (payload) => this.track('messenger', 'incoming', payload),
      logOutgoing: (requestData, responseBody) =>
        this.track('messenger', 'outgoing', responseBody === undefined ? requestData : { ...requestData, responseBody }),
    };
    if (!this.options.enabled) {
      this.log.info({}, 'Tracking is off (enabled: false or TRACKING_ENABLED=false): nothing is recorded or sent.');
      return;
    }
    if (this.store !== undefined) {
      this.replay = replaySaved(this.store, {
        log: this.log,
        maxQueueSize: this.options.maxQueueSize,
        check: (record) => this.builder.checkSaved(record),
        queued: () => this.queue.size,
        enqueue: (record, index) => this.intake.enqueue(this.targets.get(record.platform, record.type)!, record.body, record.userId, true, { index, at: record.at, key: record.key }),
      });
      if (this.replay !== undefined) this.guard.arm();
    }
    if (options.closeOnSignals) {
      this.stopListening = closeOnSignals(
        options.closeOnSignals === true ? ['SIGTERM', 'SIGINT'] : options.closeOnSignals,
        () => {
          this.signalTaken = true;
          return this.close();
        },
        this.log,
      );
    }
  }

  /** The wire value of a platform kind, as configured (`platformNames`). */
  platformValue(kind: PlatformKind): string {
    return platformValue(kind, this.options.platformNames);
  }

  /**
   * Logs an event. As in the spec's examples, a shareEvent goes on the messenger platform and
   * every other event on the direct-message platform, unless `options.platform` says otherwise.
   * Dated with the time it was logged, where the endpoint reads an event's time, unless it has one
   * there: `extraInfo.timestamp` of a custom or page-launch event, `metadata.timestamp` of a revenue
   * event (share and referral events have no such place).
   * Settles as `GenericTracker.logIncoming` does.
   */
  logEvent(event: TrackingEventInput, options: LogEventOptions = {}): Promise<TrackResult> {
    const type = (event as { type?: unknown } | null)?.type;
    // defaultEventPlatform only compares the type with 'shareEvent': any other value, a string or not, gets the direct-message platform.
    const platform = options.platform ?? defaultEventPlatform(type as string);
    // Stamped with the time it was logged, unless the caller gave one (record-time.ts).
    return this.track(platform, 'event', eventWithTime(event, new Date().toISOString()));
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
    // Stryker disable next-line BooleanLiteral: with a result, the promise made is handled (never an unhandled rejection) and dropped here; the record is queued, settled, counted and reported alike
    this.submit(platform, type, body, false);
  }

  /** `track`; with `withResult` false, no promise is made and `undefined` is returned. */
  private submit(platform: PlatformKind, type: RecordType, body: unknown, withResult: true): Promise<TrackResult>;
  private submit(platform: PlatformKind, type: RecordType, body: unknown, withResult: boolean): Promise<TrackResult> | undefined;
  private submit(platform: PlatformKind, type: RecordType, body: unknown, withResult: boolean): Promise<TrackResult> | undefined {
    if (!this.options.enabled) return withResult ? Promise.resolve(DISABLED) : undefined;
    const target = this.targets.get(platform, type);
    if (target === undefined) {
      return this.refuse(new TrackingValidationError('record', [{ path: 'platform', expected: `one of ${PLATFORM_KINDS.join(', ')}`, received: String(platform) }]), platform, type, withResult);
    }
    if (this.refusing) {
      // Stryker disable next-line ConditionalExpression: kindOf names a record that is not an event by its type whatever its body (the check saves serializing it)
      this.intake.countDropped(type === 'event' ? kindOf(type, safeJson(body)) : type);
      return this.refuse(new TrackingDeliveryError('client-closed', `The ${target.label} record was logged after close(); it was not sent. Log records before closing the client.`), platform, type, withResult);
    }
    const built = this.builder.build(platform, type, body, target.label);
    if (built.status === 'refused') return this.refuse(built.error, platform, type, withResult);
    if (built.status === 'skipped') return withResult ? Promise.resolve(built.result) : undefined;
    const { json, userId } = built;
    if (this.log.debugEnabled) this.log.debug({ url: redactUrl(target.url), body: redactJson(json) }, `queued ${target.label} record`);

    return this.intake.enqueue(target, json, userId, withResult);
  }

  /**
   * Runs `task` off the caller's path: on the next turn of the event loop, before the next
   * delivery round. `flush()` and `close()` run pending tasks first. The middleware uses this to
   * keep mapping and validation out of a bot's turn. A task that throws is reported, never rethrown.
   * Pending tasks count against `maxQueueSize` with the queued records (past it a task is dropped
   * and reported); with `persistDir`, against it on their own, since the record a task makes at a
   * full queue is saved.
   * @internal The middleware's; not part of the public API.
   */
  defer(task: () => void): void {
    if (!this.options.enabled) return;
    if (this.refusing) {
      this.intake.countDropped('record');
      this.reporter.report(new TrackingDeliveryError('client-closed', 'A record was logged after close(); it was not sent. Close the client after the bot stops taking turns.'), 'deferred');
      return;
    }
    // With persistDir, a task past a full queue still runs: the record it makes is saved to disk
    // then (intake.ts), not dropped; only the tasks waiting to run are bounded.
    if (this.deferred.length + (this.store === undefined ? this.queue.size : 0) >= this.options.maxQueueSize) {
      this.intake.countDropped('record');
      this.reporter.reportLazily('queue-full', 'deferred', () => new TrackingDeliveryError('queue-full', queueFullMessage(this.options.maxQueueSize, `${this.options.baseUrl}/track`, 'a record', 'dropped', false)));
      return;
    }
    this.deferred.push(task);
  }

  /**
   * Resolves once every record logged so far has been delivered or given up (bounded by the retry
   * caps, `maxAttempts` and `maxRetryDurationMs`: 90 s by default), or once `options.timeoutMs` has
   * passed, with what became of those records. While it is pending it holds the process open:
   * a script that awaits it gets its records delivered (or given up by the retry caps), not cut
   * off by the exit guard's `closeTimeoutMs`. Records still pending at `timeoutMs` stay queued and
   * go on being retried (counted in `pending`): the next call, or `close()`, waits for them. Holds
   * no timer once it resolves: a host that awaits it at the end of each invocation (a serverless
   * function) has its records delivered by then and nothing of the client's keeping it busy in
   * between. Never rejects, but for a `timeoutMs` that is not a positive number
   * (`TrackingConfigError`).
   * @example
   * const { delivered, pending } = await client.flush({ timeoutMs: 5_000 }); // at most 5 s
   */
  async flush(options: FlushOptions = {}): Promise<FlushResult> {
    const timeoutMs = options.timeoutMs ?? Infinity;
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0) {
      throw new TrackingConfigError('flush({ timeoutMs }) must be a positive number of milliseconds (or Infinity, the default: wait as long as the retry caps allow).', [
        { path: 'timeoutMs', expected: 'a positive number of milliseconds', received: typeof timeoutMs === 'number' ? String(timeoutMs) : typeof timeoutMs },
      ]);
    }
    return this.keepAlive.during(async () => {
      const started = performance.now();
      this.deferred.run();
      // Records held behind a user's saved ones (a replay under way) are queued as the replay goes.
      while ((this.replay?.held() ?? 0) > 0 && performance.now() - started < timeoutMs) await new Promise((resolve) => setTimeout(resolve, 20));
      const counts = await this.queue.flush(timeoutMs - (performance.now() - started));
      this.tally.flush();
      return { ...counts, pending: counts.pending + (this.replay?.held() ?? 0) };
    });
  }

  /** Says, once the process is ending by `why` (a signal, `process.exit()`), how many records it leaves behind, by kind; nothing when none. */
  private sayLeftBehind(why: string): void {
    this.tally.flush();
    const counts = this.queue.pendingBy((record) => kindOf(record.type, record.text));
    const waiting = this.deferred.length + (this.replay?.held() ?? 0);
    // No queued record is of kind 'record' (kinds are record types and event types): the waiting ones are counted as that alone.
    if (waiting > 0) counts.set('record', waiting);
    if (counts.size === 0) return;
    this.log.warn(
      { left: Object.fromEntries(counts) },
      `${why}: the process is ending with ${describeCounts('not delivered', counts)}. Close the client when the process ends (closeOnSignals: true, or await client.close()) to deliver them.`,
    );
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
   * reject with reason `close-deadline`, or `persisted` when saved to `persistDir`, and each is
   * reported), and frees the sockets so the process can exit. Safe to call more than once.
   * Never rejects.
   */
  close(timeoutMs: number = this.options.closeTimeoutMs): Promise<CloseResult> {
    return this.closeWithin(timeoutMs, performance.now());
  }

  /** `close()` with its deadline counted from `since` (`performance.now()`): the exit guard's, from when the process ran out of work. */
  private closeWithin(timeoutMs: number, since: number): Promise<CloseResult> {
    if (this.closing === undefined) {
      this.replay?.stop();
      this.closing = shutdown(timeoutMs, since, {
        queue: this.queue,
        replay: this.replay,
        transport: this.transport,
        reporter: this.reporter,
        tally: this.tally,
        log: this.log,
        persisting: this.store !== undefined,
        runningTurns: () => this.runningTurns,
        onTurnsEnded: (resolve) => (this.turnsEnded = resolve),
        stopTaking: () => {
          this.deferred.run();
          this.refusing = true;
        },
        stopWatching: () => {
          this.stopListening?.();
          this.guard.disarm();
        },
        stats: () => this.stats(),
      });
    }
    return this.closing;
  }

  /** Counts of records by state. */
  stats(): TrackingStats {
    const inFlight = this.queue.inFlightCount;
    // After close() gave up at its deadline, requests of given-up records may still be in flight: never count them twice.
    return { queued: Math.max(0, this.queue.size - inFlight) + this.deferred.length + (this.replay?.held() ?? 0), inFlight, ...this.queue.counters };
  }

  private genericTracker(kind: 'sms' | 'universal' | 'directMessage'): GenericTracker {
    return {
      platform: platformValue(kind, this.options.platformNames),
      logIncoming: (message) => this.track(kind, 'incoming', message),
      // Stamped with the time it was logged, unless the caller gave one (record-time.ts).
      logOutgoing: (message) => this.track(kind, 'outgoing', messageWithTime(message, new Date().toISOString())),
    };
  }

  private refuse(error: TrackingError, platform: PlatformKind, type: RecordType, withResult: boolean): Promise<TrackResult> | undefined {
    this.reporter.report(error, `${platform} ${type}`, { platform, type });
    return withResult ? handled(Promise.reject(error)) : undefined;
  }
}
