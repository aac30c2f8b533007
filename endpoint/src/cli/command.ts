/** What every CLI command is, and the helpers they share: streams, argument parsing, usage errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The name the CLI is run by. */
export const PROGRAM = 'botbuilder-conversation-analytics-endpoint';

/** Where a command writes and what it reads from its surroundings. Tests can pass their own. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

/** One CLI command: `name` is the first argument word. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full help text, printed for `<command> --help`. */
  usage: string;
  /** Runs with the arguments after the command word; resolves with the exit code. Throws `UsageError` for bad arguments. */
  run(args: string[], io: CliIO): Promise<number>;
}

/** Bad arguments: the message says what is wrong; the dispatcher adds where to get help and exits with 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** What `parseCommandArgs` returns for a given configuration. */
export type ParsedArgs<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/**
 * `parseArgs` in strict mode, with `-h, --help` added. Throws `UsageError` with a short message
 * for an unknown option, a missing value, or an unexpected positional argument.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(args: string[], config: T): ParsedArgs<T> {
  try {
    return parseArgs({ ...config, args, strict: true, options: { ...config.options, help: { type: 'boolean', short: 'h' } } }) as ParsedArgs<T>;
  } catch (error) {
    const message = (error as Error).message.split('. ')[0];
    throw new UsageError(message.endsWith('.') ? message : `${message}.`);
  }
}

/** Reads a whole number option; throws `UsageError` naming the option when it is not one. */
export function intOption(name: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be a whole number between ${min} and ${max}; got "${value}".`);
  }
  return n;
}

/** The default base URL of the endpoint the client-side commands talk to. */
export function defaultBaseUrl(env: NodeJS.ProcessEnv): string {
  return env.TRACKING_BASE_URL || 'http://127.0.0.1:3979';
}

/** Checks a `--url` value; throws `UsageError` when it is not an absolute http(s) URL. */
export function baseUrlOption(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url must be an absolute http:// URL such as http://127.0.0.1:3979; got "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must start with http:// or https://; got "${value}".`);
  return value.replace(/\/+$/, '');
}

/** Writes a line. */
export function println(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${line}\n`);
}
