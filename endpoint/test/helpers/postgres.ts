/**
 * The real PostgreSQL server the tests use: `TRACKING_TEST_DATABASE_URL`, else the local server
 * every machine of this project runs (127.0.0.1:5432, trust auth; `npm test` makes sure of it:
 * scripts/ensure-postgres.sh). Each caller gets a database of its own, dropped afterwards, so
 * test files never see each other's records or notifications. A test never skips when the server
 * is missing: it fails, saying what to do.
 */
import net from 'node:net';
import pg from 'pg';

/** The server tests connect to, as an admin URL (a database that exists). */
export const TEST_SERVER_URL = process.env.TRACKING_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh, empty database: its URL, and the function that drops it. */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Creates an empty database on the test server. Rejects saying what to do when the server cannot be reached. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `The PostgreSQL tests need a server: ${TEST_SERVER_URL} cannot be reached (${(error as Error).message}). ` +
        'Start the local one (pg_ctlcluster 15 main start), install one (apt-get install postgresql), or set TRACKING_TEST_DATABASE_URL.',
    );
  }
  const name = `tracking_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(TEST_SERVER_URL, name),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_SERVER_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Runs `query` on the database at `url` and returns its rows. */
export async function queryDatabase<T = Record<string, unknown>>(url: string, query: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * A TCP proxy in front of the test server, to take the database away from an endpoint and give
 * it back: `cut()` resets every connection and refuses new ones; `restore()` lets them through again.
 */
export interface DatabaseProxy {
  /** `url` with the proxy's host and port. */
  urlFor(url: string): string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startDatabaseProxy(): Promise<DatabaseProxy> {
  const target = new URL(TEST_SERVER_URL);
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const forget = () => {
      sockets.delete(client);
      sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const proxy: DatabaseProxy = {
    urlFor(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      down = false;
    },
    close() {
      proxy.cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
