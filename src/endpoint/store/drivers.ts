/**
 * Loads a database driver only when the endpoint uses that database: a bot that only uses the
 * middleware never loads either, and may install the package without them (`--omit=optional`).
 */
import { TrackingEndpointError } from '../errors.js';

/** Imports `name` (a CommonJS driver), or rejects with a `TrackingEndpointError` saying how to install it. */
export async function loadDriver<T>(name: 'better-sqlite3' | 'pg', what: 'SQLite' | 'PostgreSQL'): Promise<T> {
  try {
    const module = (await import(name)) as { default?: T };
    return (module.default ?? module) as T;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new TrackingEndpointError(
        `The endpoint needs the ${name} package to use ${what}; it is an optional dependency of this package and was not installed. Run: npm install ${name}`,
        { cause: error },
      );
    }
    throw new TrackingEndpointError(
      `The ${name} package could not be loaded (${(error as Error).message}). Reinstall it for this Node.js version: npm rebuild ${name}`,
      { cause: error },
    );
  }
}
