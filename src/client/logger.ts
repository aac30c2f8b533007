/**
 * Logging: a pino-like interface, a stderr default, and a wrapper that scrubs secrets from
 * everything it passes on.
 */
import { SECRET_KEY } from '../protocol/index.js';
import { scrub, type KnownSecrets } from './redact.js';

/** A pino-like logger. `fields` is a plain object; pino, bunyan-style and console-like loggers fit. */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * A logger that writes one line per entry to stderr: `[conversation-analytics] warn: message {"field":…}`.
 * Entries below `level` are skipped.
 */
export function stderrLogger(level: LogLevel = 'warn'): Logger {
  const min = LEVELS[level];
  const write = (lvl: LogLevel) => (fields: Record<string, unknown>, message: string) => {
    if (LEVELS[lvl] < min) return;
    const extra = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    process.stderr.write(`[conversation-analytics] ${lvl}: ${message}${extra}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

const noop = () => undefined;
/** A logger that drops everything. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

function scrubValue(value: unknown, secrets: readonly string[] | KnownSecrets, depth: number): unknown {
  if (typeof value === 'string') return scrub(value, secrets);
  if (value instanceof Error) return scrub(`${value.name}: ${value.message}`, secrets);
  if (depth > 0 && value !== null && typeof value === 'object') {
    if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets, depth - 1));
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // The package's one list of secret names (protocol/secrets.ts): keys, tokens, passwords, authorization…
      out[key] = SECRET_KEY.test(key) ? '***' : scrubValue((value as Record<string, unknown>)[key], secrets, depth - 1);
    }
    return out;
  }
  return value;
}

/**
 * The logger the client uses internally: it scrubs the API key, access tokens and secret
 * fields from every message and field before the user's logger sees them, and never throws
 * (a failing logger must not break delivery). `debugEnabled` lets callers skip building
 * debug entries at all.
 */
export class SafeLogger {
  readonly debugEnabled: boolean;

  constructor(
    private readonly target: Logger,
    private readonly secrets: readonly string[] | KnownSecrets,
    debugEnabled: boolean,
  ) {
    this.debugEnabled = debugEnabled;
  }

  debug(fields: Record<string, unknown>, message: string): void {
    if (this.debugEnabled) this.emit('debug', fields, message);
  }

  info(fields: Record<string, unknown>, message: string): void {
    this.emit('info', fields, message);
  }

  warn(fields: Record<string, unknown>, message: string): void {
    this.emit('warn', fields, message);
  }

  error(fields: Record<string, unknown>, message: string): void {
    this.emit('error', fields, message);
  }

  private emit(level: LogLevel, fields: Record<string, unknown>, message: string): void {
    try {
      this.target[level](scrubValue(fields, this.secrets, 4) as Record<string, unknown>, scrub(message, this.secrets));
    } catch {
      // A logger that throws must not break delivery or a bot's turn.
    }
  }
}
