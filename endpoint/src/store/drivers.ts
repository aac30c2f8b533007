/**
 * Loads a database driver only when the endpoint uses that database: an endpoint on PostgreSQL never
 * loads SQLite's native module, and one on SQLite never loads `pg`. Both are dependencies of the
 * package; one can still be missing (an install with `--omit`, a native build that failed).
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
        `The endpoint needs the ${name} package to use ${what}; it is a dependency of botbuilder-conversation-analytics-endpoint but is not installed. Run: npm install ${name}`,
        { cause: error },
      );
    }
    throw new TrackingEndpointError(
      `The ${name} package could not be loaded (${(error as Error).message}). Reinstall it for this Node.js version: npm rebuild ${name}`,
      { cause: error },
    );
  }
}
