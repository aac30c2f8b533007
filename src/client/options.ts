/**
 * The client's options, their defaults, and how they are checked.
 */
import { checkApiKey, DEFAULT_PLATFORM_NAMES, type PlatformKind, type PlatformNames, type RecordType, type ValidationIssue } from '../protocol/index.js';
import { TrackingConfigError, type TrackingError } from './errors.js';
import type { Logger } from './logger.js';
import type { DeliverySettings } from './delivery-queue.js';
import type { Transport } from './transport.js';

/** A record as the hooks see it: its kind, its platform and the body that will be sent. */
export interface TrackedRecord {
  type: RecordType;
  platform: PlatformKind;
  body: unknown;
}

/** Options of `new TrackingClient(options)`. Every field is optional. */
export interface TrackingClientOptions {
  /**
   * The bot's API key. Default: env `TRACKING_API_KEY`. Missing, empty or a placeholder such as
   * `<API_KEY>`: the constructor throws `TrackingConfigError`. Never logged.
   */
  apiKey?: string;
  /**
   * Base URL of the tracking endpoint; requests go to `{baseUrl}/track`. Default: env
   * `TRACKING_BASE_URL`. Missing or not an http(s) URL: the constructor throws `TrackingConfigError`.
   * @example 'http://127.0.0.1:3979'
   */
  baseUrl?: string;
  /**
   * Wire values of the direct-message and messenger platforms: lowercase letters, digits, `-` and
   * `_`, not `sms` or `universal`, and different from each other (else the constructor throws
   * `TrackingConfigError`). Default `{ directMessage: 'twitter', messenger: 'facebook' }`.
   */
  platformNames?: Partial<PlatformNames>;
  /** Accept `referralEvent` as an event type. Default `false`: the spec does not say the endpoint accepts it. */
  allowReferralEvent?: boolean;
  /** How requests are sent. Default: Node's http/https with keep-alive (`createNodeHttpTransport`). See also `createAxiosTransport`. */
  transport?: Transport;
  /** Most records waiting at once (queued, retrying, in flight). Past it a record is dropped and its promise rejects with reason `queue-full`. Default 10,000. */
  maxQueueSize?: number;
  /**
   * Most requests in flight at once, and the size of the socket pool (different users in
   * parallel; one user's records one at a time, so each user's order holds). Below it the client
   * adapts: it starts with 16, grows while the endpoint keeps up, and backs off on errors, 429s
   * and rising latency. Default 256.
   */
  maxConcurrency?: number;
  /** Time limit of one request, in ms; a slower request counts as a failed attempt and is retried. Default 10,000. */
  requestTimeoutMs?: number;
  /**
   * Requests per record at most, the first included. Default `Infinity`: a record is retried
   * until `maxRetryDurationMs` runs out, so an endpoint restart or a failover of up to a minute
   * or so loses nothing.
   */
  maxAttempts?: number;
  /**
   * Longest time a record may spend retrying, from its first attempt, in ms. Default 90,000: the
   * defaults ride out an endpoint outage of a minute, each user's records waiting in order (bounded
   * by `maxQueueSize`). A record given up then is counted and reported (by kind of record).
   */
  maxRetryDurationMs?: number;
  /** Wait before the first retry, in ms; doubles each retry, with jitter. Default 250. */
  initialBackoffMs?: number;
  /** Longest wait between two attempts, in ms. Default 5,000: delivery resumes within seconds of the endpoint's return. */
  maxBackoffMs?: number;
  /** Longest `Retry-After` honoured, in ms. Default 30,000. */
  maxRetryAfterMs?: number;
  /**
   * How long `close()` waits for pending records before giving them up, in ms; also how long a
   * process that has nothing else to do waits for its pending records before it exits. Default 5,000.
   */
  closeTimeoutMs?: number;
  /** Largest serialized record, in bytes; a larger one is refused with `TrackingValidationError`. Default 1 MiB (the local endpoint's limit). */
  maxBodyBytes?: number;
  /**
   * Where the client logs: a pino-like logger, or `false` for nothing. Default: warnings and
   * errors to stderr, the few info lines of opt-in features too (the `closeOnSignals` shutdown
   * summary, a `persistDir` replay), and debug lines when env `TRACKING_DEBUG=1`. Secrets are
   * scrubbed before the logger sees anything.
   */
  logger?: Logger | false;
  /**
   * Log every request (URL with `apiKey=***`, body with access tokens redacted). Default: env
   * `TRACKING_DEBUG` (`1`, `true`, `yes`, `on` or `debug` turn it on; `0`, `false`, `no`, `off` or
   * empty leave it off; any other value makes the constructor throw `TrackingConfigError`), else off.
   */
  debug?: boolean;
  /** Scrubs a record before it is sent (for example to remove personal data). Return the record; returning nothing keeps the (mutated) record. A hook that throws rejects the record. */
  redact?: (record: TrackedRecord) => TrackedRecord | void;
  /** Users whose records are never sent: a list of user ids, or a predicate. Their log calls resolve with `{ status: 'skipped' }`. */
  ignoreUsers?: readonly string[] | ((userId: string, record: TrackedRecord) => boolean);
  /** Last look at a record before it is queued: return it (changed or not), or `null` to drop it. Runs after `redact`; the result is validated again. */
  beforeSend?: (record: TrackedRecord) => TrackedRecord | null | void;
  /**
   * Called for every record refused or given up, with the error. Default: a warning through the
   * logger, in full for the first of a run of identical failures (same reason, HTTP status and
   * network error code), then counted: a `still failing: N more` line at most every 5 minutes, and
   * a count when the run ends (5 minutes without such a failure) and at `close()`.
   */
  onError?: (error: TrackingError, record: { type: RecordType; platform: PlatformKind } | undefined) => void;
  /**
   * Opt-in disk persistence: a directory where records that could not be delivered (queue
   * overflow, an outage that outlasts the retries, `close()` at its deadline) are written instead
   * of being lost, in files of mode 0600. A client started later with the same directory re-sends
   * them, paced. Default: none (such records are given up and reported).
   */
  persistDir?: string;
  /** Most bytes `persistDir` may hold; records past it are given up and reported. Default 50 MiB. */
  maxPersistBytes?: number;
  /**
   * Close the client when the process receives these signals: deliver what is pending within
   * `closeTimeoutMs`, report (and with `persistDir`, save) what could not be delivered, then let
   * the signal take its course (the process exits, unless the application has its own listener).
   * `true` means `['SIGTERM', 'SIGINT']`. Default: off.
   */
  closeOnSignals?: boolean | readonly NodeJS.Signals[];
  /**
   * `false`: a client that records nothing and never touches the network (for tests and local
   * runs); it says so once, needs no key or URL, and every log call resolves with
   * `{ status: 'skipped', reason: 'disabled' }`. Default: env `TRACKING_ENABLED` (`false`, `0`,
   * `no` or `off` turn it off; `true`, `1`, `yes`, `on` or empty leave it on; any other value, such
   * as `ture`, makes the constructor throw `TrackingConfigError` rather than guess), else `true`.
   */
  enabled?: boolean;
  /** Environment to read defaults from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Values an on/off environment variable may take (trimmed, any case); empty is the same as unset. */
const ON = new Set(['1', 'true', 'yes', 'on']);
const OFF = new Set(['0', 'false', 'no', 'off']);

/**
 * Reads an on/off environment variable: `undefined` when it is unset or empty, else true or false.
 * A value that is neither (`ture`, `verbose`) is added to `problems` and read as `undefined`.
 */
function envFlag(env: NodeJS.ProcessEnv, name: string, problems: Problems, extraOn?: string): boolean | undefined {
  const raw = env[name];
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (ON.has(value) || value === extraOn) return true;
  if (OFF.has(value)) return false;
  const shown = JSON.stringify(raw!.length > 40 ? `${raw!.slice(0, 40)}…` : raw);
  problems.add(
    `${name} is ${shown}, which is neither on nor off: set it to true or false (1/0, yes/no and on/off work too${extraOn === undefined ? '' : `, and ${extraOn} means on`}), or remove it.`,
    { path: name, expected: `on or off (true/false, 1/0, yes/no, on/off${extraOn === undefined ? '' : `, ${extraOn}`})`, received: shown },
  );
  return undefined;
}

/** The problems found in a client's settings: one message and one issue each, thrown together. */
class Problems {
  readonly messages: string[] = [];
  readonly issues: ValidationIssue[] = [];

  add(message: string, ...issues: ValidationIssue[]): void {
    this.messages.push(message);
    this.issues.push(...issues);
  }

  throwIfAny(): void {
    const { messages } = this;
    if (messages.length === 0) return;
    throw new TrackingConfigError(messages.length === 1 ? messages[0] : `${messages.length} settings need fixing: ${messages.map((m, i) => `(${i + 1}) ${m}`).join(' ')}`, this.issues);
  }
}

export interface ResolvedOptions extends DeliverySettings {
  /** `false`: the client records nothing and sends nothing (`enabled`, else env `TRACKING_ENABLED`). */
  enabled: boolean;
  /** Log every request (`debug`, else env `TRACKING_DEBUG`). */
  debug: boolean;
  apiKey: string;
  baseUrl: string;
  platformNames: PlatformNames;
  allowReferralEvent: boolean;
  closeTimeoutMs: number;
  maxBodyBytes: number;
  maxPersistBytes: number;
}

const NUMERIC_DEFAULTS = {
  maxQueueSize: 10_000,
  maxConcurrency: 256,
  requestTimeoutMs: 10_000,
  maxAttempts: Infinity,
  maxRetryDurationMs: 90_000,
  initialBackoffMs: 250,
  maxBackoffMs: 5_000,
  maxRetryAfterMs: 30_000,
  closeTimeoutMs: 5_000,
  maxBodyBytes: 1024 * 1024,
  maxPersistBytes: 50 * 1024 * 1024,
} as const;

type NumericOption = keyof typeof NUMERIC_DEFAULTS;

/**
 * Fills in defaults from the environment and checks every option. Throws one `TrackingConfigError`
 * that names every missing or invalid setting at once (the API key, the base URL, `TRACKING_ENABLED`,
 * `TRACKING_DEBUG`, `platformNames`, numeric options), each with what to do, so a deployment is
 * fixed in one go. A client that is off (`enabled: false`, `TRACKING_ENABLED=false`) needs no key
 * or URL: none is checked, and none is used.
 */
export function resolveOptions(options: TrackingClientOptions): ResolvedOptions {
  const env = options.env ?? process.env;
  const problems = new Problems();
  // An option given in code wins over the environment, whose variable is then not read at all.
  const enabled = options.enabled !== undefined ? options.enabled !== false : (envFlag(env, 'TRACKING_ENABLED', problems) ?? true);
  const debug = options.debug !== undefined ? options.debug === true : (envFlag(env, 'TRACKING_DEBUG', problems, 'debug') ?? false);
  let apiKey = options.apiKey ?? env.TRACKING_API_KEY;
  let baseUrl = options.baseUrl ?? env.TRACKING_BASE_URL;
  if (!enabled) {
    // Off: no key or URL is needed, and none is used (nothing is ever sent).
    apiKey = 'tracking-disabled';
    baseUrl = 'http://127.0.0.1';
  }
  if (apiKey === undefined || apiKey === '') {
    problems.add(
      'No API key: set the TRACKING_API_KEY environment variable, or pass { apiKey } to the TrackingClient. A key comes with each bot you create in the analytics dashboard.',
      { path: 'apiKey', expected: 'the bot\'s API key (env TRACKING_API_KEY)', received: 'missing' },
    );
  } else {
    const keyIssues = checkApiKey(apiKey);
    if (keyIssues.length > 0) problems.add('The API key is a placeholder (such as <API_KEY>), not a real key: put the bot\'s key in TRACKING_API_KEY or the apiKey option.', ...keyIssues);
  }
  if (baseUrl === undefined || baseUrl === '') {
    problems.add(
      'No tracking endpoint: set the TRACKING_BASE_URL environment variable, or pass { baseUrl } to the TrackingClient (for the bundled local endpoint, run `npx botbuilder-conversation-analytics-endpoint serve` and use the address it prints).',
      { path: 'baseUrl', expected: 'the endpoint\'s base URL (env TRACKING_BASE_URL)', received: 'missing' },
    );
  } else if (!/^https?:\/\/[^/\s]/i.test(baseUrl) || !URL.canParse(baseUrl)) {
    problems.add('baseUrl (TRACKING_BASE_URL) must be an absolute http:// or https:// URL, such as http://127.0.0.1:3979.', { path: 'baseUrl', expected: 'an absolute http(s) URL', received: 'not an http(s) URL' });
  }
  const platformNames = { ...DEFAULT_PLATFORM_NAMES, ...options.platformNames };
  for (const key of ['directMessage', 'messenger'] as const) {
    const value: unknown = platformNames[key];
    if (typeof value !== 'string' || !/^[a-z0-9_-]+$/.test(value) || value === 'sms' || value === 'universal') {
      problems.add(`platformNames.${key} must be a lowercase platform value (letters, digits, - and _) other than sms and universal (default ${DEFAULT_PLATFORM_NAMES[key]}).`, {
        path: `platformNames.${key}`,
        expected: 'a lowercase platform value',
        received: 'invalid',
      });
    }
  }
  if (platformNames.directMessage === platformNames.messenger) {
    problems.add('platformNames.directMessage and platformNames.messenger must differ: records of the two platforms would be indistinguishable.', {
      path: 'platformNames',
      expected: 'two different platform values',
      received: 'the same value twice',
    });
  }
  const numbers = {} as Record<NumericOption, number>;
  for (const name of Object.keys(NUMERIC_DEFAULTS) as NumericOption[]) {
    const value = options[name] ?? NUMERIC_DEFAULTS[name];
    // maxAttempts alone may be Infinity (its default: no cap but the retry budget).
    if (!(Number.isFinite(value) || (name === 'maxAttempts' && value === Infinity)) || value <= 0) {
      const expected = name === 'maxAttempts' ? 'a positive number, or Infinity' : 'a positive number';
      problems.add(`Option ${name} must be ${expected} (default ${NUMERIC_DEFAULTS[name]}).`, { path: name, expected, received: typeof value });
      continue;
    }
    numbers[name] = value;
  }
  problems.throwIfAny();
  return {
    ...numbers,
    enabled,
    debug,
    apiKey: apiKey as string,
    baseUrl: baseUrl as string,
    platformNames,
    allowReferralEvent: options.allowReferralEvent === true,
  };
}
