/** Options of `startTrackingEndpoint`, their defaults, and checking them. */
import { resolve } from 'node:path';
import { DEFAULT_PLATFORM_NAMES, isPlaceholder, type PlatformNames } from 'botbuilder-conversation-analytics/protocol';
import { TrackingEndpointError } from './errors.js';
import { isLoopback } from './http/hosts.js';
import { DEFAULT_WAIT_BOUNDS } from './store/catching-up.js';
import { MASK_KINDS, type MaskKind, type MaskOptions } from './store/mask.js';

function checkMaskKinds(kinds: readonly string[]): MaskKind[] {
  for (const kind of kinds) {
    if (!(MASK_KINDS as readonly string[]).includes(kind)) throw new TrackingEndpointError(`mask takes "email" and "phone"; got ${JSON.stringify(kind)}.`);
  }
  return [...new Set(kinds as MaskKind[])];
}

/** Options of `startTrackingEndpoint`. Every field is optional. */
export interface TrackingEndpointOptions {
  /** TCP port. Default `3979`; `0` picks a free port (read it from `endpoint.port`). */
  port?: number;
  /**
   * Address to listen on. Default `127.0.0.1` (this machine only). On a non-loopback address
   * at least one key is required, and reads need a key too.
   */
  host?: string;
  /**
   * Host names (without port) the endpoint answers to besides loopback names and the address it
   * listens on: the names clients and browsers use to reach it (`tracking.example.com`). Every
   * route, writes included, refuses a `Host` that is not one of them (DNS rebinding). Listening
   * on all interfaces (`0.0.0.0`, `::`) without any name given accepts any `Host`.
   */
  allowedHosts?: readonly string[];
  /**
   * Accepted API keys, one per bot. Default: none, which accepts any key that is not a placeholder
   * (allowed on loopback only). Placeholders such as `<API_KEY>` are always refused with 401.
   * Name a bot with `NAME=KEY` (`'pizza-bot=sk_live_…'`): reads and the page can then filter by
   * that name. Records are kept per bot by a hash of its key, never the key.
   */
  apiKeys?: readonly string[];
  /**
   * Readers: who may read the data, each with a token of its own (write keys never read).
   * `'NAME=TOKEN'` reads every bot; `'NAME=TOKEN:pizza,support'` only those bots (names given in
   * `apiKeys`); `'NAME=TOKEN:*:admin'` or `'NAME=TOKEN:pizza:admin'` may also erase users' data.
   * Off loopback, reads need one (`Authorization: Bearer TOKEN`); on loopback reads are open
   * unless a reader is given. Tokens cannot hold `:`; they are compared in constant time and never logged.
   */
  readers?: readonly string[];
  /**
   * Trust an auth proxy (oauth2-proxy, an SSO gateway) to name the signed-in user in this request
   * header (`'X-Forwarded-User'`): reads then need it, and the user one of `readerUsers`. Only
   * when nothing but the proxy can reach the endpoint.
   */
  trustProxyUser?: string;
  /** The users the auth proxy may name: `'NAME'`, `'NAME:pizza,support'`, `'NAME:*:admin'` (as `readers`, without a token). */
  readerUsers?: readonly string[];
  /**
   * A token that may read `GET /metrics` (and nothing else), given as `Authorization: Bearer TOKEN`:
   * for a Prometheus server that should not hold a reader token. Compared in constant time, never
   * logged. Without it, `/metrics` is read with a reader token that sees every bot (or openly on
   * loopback with no reader configured, like the other reads).
   */
  metricsToken?: string;
  /**
   * Where records are kept: a SQLite file (relative to `process.cwd()`; default
   * `.tracking-data/tracking.db`, created with its folder, readable by this user only), a
   * PostgreSQL URL (`postgres://user:password@host:5432/db`, to run several endpoints on one
   * database), or `false` for SQLite in memory (records are lost on close).
   *
   * A path ending in `.ndjson` names an earlier version's data file: it is imported (once, and
   * left in place) into a SQLite file of the same name ending in `.db`. The default database
   * likewise imports `.tracking-data/records.ndjson` when there is one.
   */
  database?: string | false;
  /** @deprecated The earlier name of `database`; `database` wins when both are given. */
  dataFile?: string | false;
  /**
   * SQLite: sync every commit to disk before acknowledging (`synchronous = FULL`). Default `false`:
   * an acknowledged record survives the endpoint's process being killed, not a power cut.
   */
  fsync?: boolean;
  /**
   * Delete what happened longer ago than this many days (records, entries and the counts over
   * them), at start and every hour. Default: keep everything.
   */
  retentionDays?: number;
  /** How often to log a one-line summary of what was accepted and refused, in ms. Default 60000; 0: never. */
  summaryIntervalMs?: number;
  /** Largest accepted body in bytes; larger bodies get 413. Default 1 MiB (1048576). */
  maxBodyBytes?: number;
  /** Deepest accepted nesting of objects and arrays in a body; deeper gets 400. Default `64`. */
  maxBodyDepth?: number;
  /** Wire values of the direct-message and messenger platforms. Default `twitter` and `facebook`. */
  platformNames?: Partial<PlatformNames>;
  /** Accept `referralEvent` as an event type. Default `false` (the spec does not say it is accepted). */
  allowReferralEvent?: boolean;
  /**
   * Serve HTTPS: the certificate file (PEM; with its chain after it, as `fullchain.pem`) and its
   * private key file (PEM). Both or neither. Read at start and again on `endpoint.reloadTls()`
   * (`serve` calls it on SIGHUP), so a renewed certificate is taken up without a restart.
   */
  tlsCertFile?: string;
  /** The private key of `tlsCertFile`. */
  tlsKeyFile?: string;
  /**
   * Refuse (400) a `v` the spec does not list. Default `false`: besides `11.1.0-rest` and
   * `10.1.1-rest` (checked against the spec's rule for the platform and type), a client version in
   * the form real SDKs send, `MAJOR.MINOR.PATCH-SOURCE` such as `12.1.0-npm` (dashbot's npm
   * client), is accepted for any platform and type, kept as the record's `v`, and said once per
   * version in the log. Turn it on in a CI that checks a bot against the spec.
   */
  strictVersions?: boolean;
  /**
   * Keep payment card numbers as sent. Default `false`: at ingestion, every run of 13 to 19 digits
   * (spaces or dashes allowed between groups) that passes the Luhn check is replaced by `•••• 1111`
   * (its last four digits), wherever it stands in a record. Turning this on stores card numbers,
   * which PCI DSS forbids unless the whole system is in its scope.
   */
  keepCardNumbers?: boolean;
  /** Mask these at ingestion too: `email` (→ `[email]`), `phone` (→ `[phone]`). Default none. */
  mask?: readonly MaskKind[];
  /** Time allowed to receive a whole request, headers and body; a slower one gets 408 and its connection is closed. Default 5000 ms. */
  requestTimeoutMs?: number;
  /** Time allowed to receive a request's headers (also how long a new connection may stay silent); then 408 and closed. Default 3000 ms. */
  headersTimeoutMs?: number;
  /**
   * How long a connection with no request in progress stays open: an idle keep-alive connection
   * (a request being worked on is never cut by it). Default 5000 ms.
   */
  keepAliveTimeoutMs?: number;
  /**
   * How long a read may wait for the views to hold every record acknowledged before it (after a
   * burst they are built behind the acknowledgements); past it the read is answered 503 with
   * `Retry-After` and `catchingUp: { behindRecords, behindSeconds }`. Default 5000 ms.
   */
  maxReadWaitMs?: number;
  /**
   * How long a record may wait, before it is committed, while the views are too far behind to take
   * more; past it the request is answered 503 with `Retry-After` and the record is not stored.
   * Once committed a record is always answered 200. Keep it well below your clients' request
   * timeout (the middleware's client waits 10 s). Default 4000 ms.
   */
  maxWriteWaitMs?: number;
  /** On `close()`, how long requests in progress may take before their connections are cut. Default 2000 ms. */
  closeGraceMs?: number;
  /** Where to report problems that are not the client's fault (a failed write, a bug). Default: `console.error`. */
  log?: (message: string) => void;
}

/** Options with every default applied. */
export interface ResolvedOptions {
  port: number;
  host: string;
  /** The accepted keys, and the bot names given to some of them. */
  apiKeys: readonly string[];
  botNames: ReadonlyMap<string, string>;
  /** The readers, and the auth proxy's header and users, as given (checked when the endpoint starts). */
  readers: readonly string[];
  trustProxyUser: string | undefined;
  readerUsers: readonly string[];
  /** The token that may read `/metrics`, if any. */
  metricsToken: string | undefined;
  /** A SQLite file (absolute), a PostgreSQL URL, or `false` (in memory). */
  database: string | false;
  /** An earlier version's NDJSON data file to import once, if it exists. */
  importFrom: string | undefined;
  fsync: boolean;
  retentionDays: number | undefined;
  summaryIntervalMs: number;
  maxBodyBytes: number;
  maxBodyDepth: number;
  platformNames: PlatformNames;
  allowReferralEvent: boolean;
  strictVersions: boolean;
  /** HTTPS: the certificate and key files; `undefined` for plain HTTP. */
  tls: { certFile: string; keyFile: string } | undefined;
  /** What is masked at ingestion. */
  masking: Required<MaskOptions>;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxReadWaitMs: number;
  maxWriteWaitMs: number;
  closeGraceMs: number;
  log: (message: string) => void;
  /** True when `host` is a loopback address. */
  loopback: boolean;
  /** The `Host` names accepted (lowercase, no port) besides loopback ones; `undefined` accepts any. */
  allowedHosts: ReadonlySet<string> | undefined;
}

/** The default port of the local endpoint. */
export const DEFAULT_PORT = 3979;
/** The default database file, relative to the working directory. */
export const DEFAULT_DATABASE_FILE = '.tracking-data/tracking.db';
/** Where earlier versions kept records by default; imported into the default database when found. */
export const LEGACY_DATA_FILE = '.tracking-data/records.ndjson';

/** The database and the NDJSON file to import, from the `database` option. */
function databaseOf(option: string | false | undefined): { database: string | false; importFrom: string | undefined } {
  if (option === false) return { database: false, importFrom: undefined };
  if (option === undefined) return { database: resolve(DEFAULT_DATABASE_FILE), importFrom: resolve(LEGACY_DATA_FILE) };
  if (/^postgres(ql)?:\/\//i.test(option)) return { database: option, importFrom: undefined };
  if (option.trim() === '') throw new TrackingEndpointError('database must be a file path, a postgres:// URL, or false.');
  if (/\.ndjson$/i.test(option)) return { database: resolve(option.replace(/\.ndjson$/i, '.db')), importFrom: resolve(option) };
  return { database: resolve(option), importFrom: undefined };
}

/** Splits `NAME=KEY` entries into keys and names (a key without a name has none). */
function keysAndNames(entries: readonly string[]): { keys: string[]; names: Map<string, string> } {
  const keys: string[] = [];
  const names = new Map<string, string>();
  for (const entry of entries) {
    const match = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})=(.+)$/.exec(entry);
    const key = match ? match[2] : entry;
    if (match) {
      if ([...names.values()].includes(match[1])) throw new TrackingEndpointError(`The bot name "${match[1]}" is given to two keys; give each bot its own name.`);
      names.set(key, match[1]);
    }
    keys.push(key);
  }
  return { keys, names };
}

function count(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) throw new TrackingEndpointError(`${name} must be a whole number of at least ${min}; got ${value}.`);
  return value;
}

function checkPlatformNames(names: PlatformNames): PlatformNames {
  const { directMessage, messenger } = names;
  const valid = (name: string) => /^[a-z0-9_.-]+$/.test(name) && name !== 'sms' && name !== 'universal';
  if (!valid(directMessage) || !valid(messenger) || directMessage === messenger) {
    throw new TrackingEndpointError(
      `Platform names must be two different lowercase values other than "sms" and "universal"; got "${directMessage}" and "${messenger}".`,
    );
  }
  return names;
}

/** The TLS files: both or neither. */
function checkTlsFiles(certFile: string | undefined, keyFile: string | undefined): { certFile: string; keyFile: string } | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (!certFile || !keyFile) {
    throw new TrackingEndpointError(`HTTPS needs both a certificate and its key: give ${certFile ? 'tlsKeyFile (--tls-key)' : 'tlsCertFile (--tls-cert)'} too.`);
  }
  return { certFile, keyFile };
}

/** The metrics token: not empty, no spaces around it, not a write key (write keys sit in access logs). */
function checkMetricsToken(token: string | undefined, apiKeys: readonly string[]): string | undefined {
  if (token === undefined) return undefined;
  if (token.trim() === '') throw new TrackingEndpointError('metricsToken (--metrics-token) is empty; give a token of its own, or leave it out.');
  if (token !== token.trim()) throw new TrackingEndpointError('metricsToken (--metrics-token) starts or ends with a space; give it without.');
  if (apiKeys.includes(token)) throw new TrackingEndpointError('metricsToken (--metrics-token) is one of the write keys (--key); give it a token of its own.');
  return token;
}

/** Applies defaults. Throws a `TrackingEndpointError` for an option that cannot work. */
export function resolveOptions(options: TrackingEndpointOptions = {}): ResolvedOptions {
  const host = options.host ?? '127.0.0.1';
  const { keys: apiKeys, names: botNames } = keysAndNames(options.apiKeys ?? []);
  const placeholder = apiKeys.find((key) => isPlaceholder(key));
  if (placeholder !== undefined) throw new TrackingEndpointError(`The API key "${placeholder}" is a placeholder; give the bot's real key.`);
  const loopback = isLoopback(host);
  const names = (options.allowedHosts ?? []).map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const allowedHosts = wildcard && names.length === 0 ? undefined : new Set([...names, ...(wildcard ? [] : [host.toLowerCase()]), ...(host.includes(':') && !wildcard ? [`[${host.toLowerCase()}]`] : [])]);
  if (!loopback && apiKeys.length === 0) {
    throw new TrackingEndpointError(`Listening on ${host} exposes the endpoint to other machines: give at least one API key (--key or TRACKING_API_KEYS), or listen on 127.0.0.1.`);
  }
  const port = count('port', options.port, DEFAULT_PORT, 0);
  if (port > 65535) throw new TrackingEndpointError(`port must be between 0 and 65535; got ${port}.`);
  const requestTimeoutMs = count('requestTimeoutMs', options.requestTimeoutMs, 5_000, 1);
  const retentionDays = options.retentionDays;
  if (retentionDays !== undefined && (!Number.isFinite(retentionDays) || retentionDays <= 0)) {
    throw new TrackingEndpointError(`retentionDays must be a number of days greater than 0; got ${retentionDays}.`);
  }
  return {
    port,
    host,
    apiKeys,
    botNames,
    readers: options.readers ?? [],
    trustProxyUser: options.trustProxyUser,
    readerUsers: options.readerUsers ?? [],
    metricsToken: checkMetricsToken(options.metricsToken, apiKeys),
    ...databaseOf(options.database !== undefined ? options.database : options.dataFile),
    fsync: options.fsync ?? false,
    retentionDays,
    summaryIntervalMs: count('summaryIntervalMs', options.summaryIntervalMs, 60_000, 0),
    maxBodyBytes: count('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, 1),
    maxBodyDepth: count('maxBodyDepth', options.maxBodyDepth, 64, 1),
    platformNames: checkPlatformNames({
      directMessage: options.platformNames?.directMessage ?? DEFAULT_PLATFORM_NAMES.directMessage,
      messenger: options.platformNames?.messenger ?? DEFAULT_PLATFORM_NAMES.messenger,
    }),
    allowReferralEvent: options.allowReferralEvent ?? false,
    strictVersions: options.strictVersions ?? false,
    tls: checkTlsFiles(options.tlsCertFile, options.tlsKeyFile),
    masking: { keepCardNumbers: options.keepCardNumbers ?? false, mask: checkMaskKinds(options.mask ?? []) },
    requestTimeoutMs,
    headersTimeoutMs: Math.min(count('headersTimeoutMs', options.headersTimeoutMs, 3_000, 1), requestTimeoutMs),
    keepAliveTimeoutMs: count('keepAliveTimeoutMs', options.keepAliveTimeoutMs, 5_000, 1),
    maxReadWaitMs: count('maxReadWaitMs', options.maxReadWaitMs, DEFAULT_WAIT_BOUNDS.readMs, 1),
    maxWriteWaitMs: count('maxWriteWaitMs', options.maxWriteWaitMs, DEFAULT_WAIT_BOUNDS.writeMs, 1),
    closeGraceMs: count('closeGraceMs', options.closeGraceMs, 2_000, 0),
    log: options.log ?? ((message) => console.error(message)),
    allowedHosts,
    loopback,
  };
}
