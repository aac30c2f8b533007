/**
 * A PostgreSQL server of a test's own, to stop and start at will (the shared test server must
 * never go away under other test files): `initdb` in a temporary folder, `pg_ctl` to start it on a
 * free port of 127.0.0.1, `pg_ctl stop -m immediate` to take it away as a crash does (no
 * checkpoint, no goodbye to clients; the next start recovers from the WAL). It runs as the OS user
 * `postgres` when the tests run as root (PostgreSQL refuses to run as root), else as the user.
 *
 * `fsync` (default on, as in production): with it, a commit's answer waits for the disk, so a stop
 * that comes while a commit is on its way to the disk loses the answer of a commit that landed
 * (the WAL was written to the kernel, which the stop does not undo). Off, the same happens in a far
 * narrower window, and starts after a stop are faster.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server: `immediate` as a crash does, `fast` as an orderly shutdown. Resolves once it is down. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again (recovering from its WAL after an immediate stop); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

/** The folder of PostgreSQL's programs (the newest version installed), or an error saying what to install. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error(`A private PostgreSQL server needs initdb and pg_ctl (${root}/VERSION/bin): install postgresql (apt-get install postgresql).`);
  return join(root, versions[0], 'bin');
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Makes a new server in a temporary folder and starts it. */
export async function startPrivatePostgres(options: { fsync?: boolean } = {}): Promise<PrivatePostgres> {
  const bin = binDir();
  const root = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'private-postgres-'));
  if (root) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const as = (program: string, args: string[]) =>
    root ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args], { timeout: 60_000 }) : run(join(bin, program), args, { timeout: 60_000 });
  const data = join(dir, 'data');
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync', '--wal-segsize=1']);
  const port = await freePort();
  const settings = [
    `-p ${port}`, '-c listen_addresses=127.0.0.1', `-c unix_socket_directories=${dir}`, `-c fsync=${options.fsync === false ? 'off' : 'on'}`,
    // Small WAL files, not zero-filled; and a start after a crash syncs the data folder with one syncfs, not a fsync per file (seconds).
    '-c wal_init_zero=off', '-c recovery_init_sync_method=syncfs', '-c min_wal_size=4MB', '-c shared_buffers=16MB', '-c max_connections=60',
  ].join(' ');
  const server: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await as('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', settings]);
    },
    async stop(mode = 'immediate') {
      await as('pg_ctl', ['stop', '-D', data, '-m', mode, '-w', '-t', '60']);
    },
    async destroy() {
      await server.stop('immediate').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return server;
}
