/** Options of `startTrackingEndpoint`, their defaults, and checking them. */
import { resolve } from 'node:path';
import { DEFAULT_PLATFORM_NAMES, isPlaceholder, type PlatformNames } from '../protocol/index.js';
import { TrackingEndpointError } from './errors.js';
import { isLoopback } from './http/hosts.js';

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
   * Accepted API keys. Default: none, which accepts any key that is not a placeholder (allowed
   * on loopback only). Placeholders such as `<API_KEY>` are always refused with 401.
   */
  apiKeys?: readonly string[];
  /**
   * NDJSON data file, relative to `process.cwd()`. Default `.tracking-data/records.ndjson`.
   * `false` keeps records in memory only (they are lost on close).
   */
  dataFile?: string | false;
  /** Flush every write to disk before acknowledging. Default `false` (survives a crash of the process, not of the machine). */
  fsync?: boolean;
  /** Largest accepted body in bytes; larger bodies get 413. Default 1 MiB (1048576). */
  maxBodyBytes?: number;
  /** Deepest accepted nesting of objects and arrays in a body; deeper gets 400. Default `64`. */
  maxBodyDepth?: number;
  /** Wire values of the direct-message and messenger platforms. Default `twitter` and `facebook`. */
  platformNames?: Partial<PlatformNames>;
  /** Accept `referralEvent` as an event type. Default `false` (the spec does not say it is accepted). */
  allowReferralEvent?: boolean;
  /** Time allowed to receive a whole request, headers and body; a slower one gets 408 and its connection is closed. Default 5000 ms. */
  requestTimeoutMs?: number;
  /** Time allowed to receive a request's headers (also how long a new connection may stay silent); then 408 and closed. Default 3000 ms. */
  headersTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open. Default 5000 ms. */
  keepAliveTimeoutMs?: number;
  /** On `close()`, how long requests in progress may take before their connections are cut. Default 2000 ms. */
  closeGraceMs?: number;
  /** Where to report problems that are not the client's fault (a failed write, a bug). Default: `console.error`. */
  log?: (message: string) => void;
}

/** Options with every default applied. */
export interface ResolvedOptions {
  port: number;
  host: string;
  apiKeys: readonly string[];
  dataFile: string | false;
  fsync: boolean;
  maxBodyBytes: number;
  maxBodyDepth: number;
  platformNames: PlatformNames;
  allowReferralEvent: boolean;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  closeGraceMs: number;
  log: (message: string) => void;
  /** True when `host` is a loopback address. */
  loopback: boolean;
  /** The `Host` names accepted (lowercase, no port) besides loopback ones; `undefined` accepts any. */
  allowedHosts: ReadonlySet<string> | undefined;
}

/** The default port of the local endpoint. */
export const DEFAULT_PORT = 3979;
/** The default data file, relative to the working directory. */
export const DEFAULT_DATA_FILE = '.tracking-data/records.ndjson';

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

/** Applies defaults. Throws a `TrackingEndpointError` for an option that cannot work. */
export function resolveOptions(options: TrackingEndpointOptions = {}): ResolvedOptions {
  const host = options.host ?? '127.0.0.1';
  const apiKeys = [...(options.apiKeys ?? [])];
  const placeholder = apiKeys.find((key) => isPlaceholder(key));
  if (placeholder !== undefined) throw new TrackingEndpointError(`The API key "${placeholder}" is a placeholder; give the bot's real key.`);
  const loopback = isLoopback(host);
  const names = (options.allowedHosts ?? []).map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const allowedHosts = wildcard && names.length === 0 ? undefined : new Set([...names, ...(wildcard ? [] : [host.toLowerCase().replace(/^\[(.*)\]$/, '[$1]')]), ...(host.includes(':') && !wildcard ? [`[${host.toLowerCase()}]`] : [])]);
  if (!loopback && apiKeys.length === 0) {
    throw new TrackingEndpointError(`Listening on ${host} exposes the endpoint to other machines: give at least one API key (--key or TRACKING_API_KEYS), or listen on 127.0.0.1.`);
  }
  const port = count('port', options.port, DEFAULT_PORT, 0);
  if (port > 65535) throw new TrackingEndpointError(`port must be between 0 and 65535; got ${port}.`);
  const requestTimeoutMs = count('requestTimeoutMs', options.requestTimeoutMs, 5_000, 1);
  return {
    port,
    host,
    apiKeys,
    dataFile: options.dataFile === false ? false : resolve(options.dataFile ?? DEFAULT_DATA_FILE),
    fsync: options.fsync ?? false,
    maxBodyBytes: count('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, 1),
    maxBodyDepth: count('maxBodyDepth', options.maxBodyDepth, 64, 1),
    platformNames: checkPlatformNames({
      directMessage: options.platformNames?.directMessage ?? DEFAULT_PLATFORM_NAMES.directMessage,
      messenger: options.platformNames?.messenger ?? DEFAULT_PLATFORM_NAMES.messenger,
    }),
    allowReferralEvent: options.allowReferralEvent ?? false,
    requestTimeoutMs,
    headersTimeoutMs: Math.min(count('headersTimeoutMs', options.headersTimeoutMs, 3_000, 1), requestTimeoutMs),
    keepAliveTimeoutMs: count('keepAliveTimeoutMs', options.keepAliveTimeoutMs, 5_000, 1),
    closeGraceMs: count('closeGraceMs', options.closeGraceMs, 2_000, 0),
    log: options.log ?? ((message) => console.error(message)),
    allowedHosts,
    loopback,
  };
}
