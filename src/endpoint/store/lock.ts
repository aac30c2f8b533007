/**
 * A lock file next to the data file, so two endpoints never append to the same file (their
 * `seq` numbers would collide). It holds the owner's process id and a token of its own. A lock
 * left behind by a process that no longer runs is taken over, and so is one that names this very
 * process id without being one of ours: a container restarted after kill -9 runs the endpoint as
 * process 1 again, and must not take its dead predecessor's lock for its own. Taking over is
 * atomic (the stale lock is renamed away, and only the endpoint that moved the stale one creates
 * the new one), so two endpoints started together over a stale lock never both run.
 */
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { TrackingEndpointError } from '../errors.js';

/** Tokens of the locks this process holds now. */
const held = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner a lock file names: `pid token`. */
function parseLock(text: string): { pid: number; token: string } | undefined {
  const [pidText, token = ''] = text.trim().split(/\s+/);
  const pid = Number.parseInt(pidText ?? '', 10);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, token } : undefined;
}

/** True when the lock's owner is alive: another process that runs, or an endpoint of this process. */
function ownerAlive(owner: { pid: number; token: string } | undefined): boolean {
  if (owner === undefined) return false;
  if (owner.pid === process.pid) return held.has(owner.token);
  return isRunning(owner.pid);
}

/** Creates the lock with its content in one step (written aside, then linked into place: a reader never sees it empty). */
async function tryCreate(lockFile: string, token: string): Promise<boolean> {
  const draft = `${lockFile}.new-${token}`;
  const handle = await open(draft, 'w', 0o600);
  try {
    await handle.writeFile(`${process.pid} ${token}\n`);
  } finally {
    await handle.close();
  }
  try {
    await link(draft, lockFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/**
 * Moves a stale lock out of the way, atomically: returns true when what was moved is the stale
 * lock that was read (`staleText`). When another endpoint replaced it meanwhile, the moved lock is
 * put back (if its place is still free) and false is returned.
 */
async function moveStale(lockFile: string, staleText: string): Promise<boolean> {
  const aside = `${lockFile}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await rename(lockFile, aside);
  } catch {
    return false; // another endpoint moved it first
  }
  const moved = await readFile(aside, 'utf8').catch(() => '');
  if (moved === staleText) {
    await unlink(aside).catch(() => undefined);
    return true;
  }
  // A live lock was moved by mistake: put it back where its owner expects it.
  await link(aside, lockFile).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  return false;
}

/**
 * Takes `${dataFile}.lock` and returns the function that releases it.
 * Rejects with a `TrackingEndpointError` when a running endpoint holds it.
 */
export async function acquireLock(dataFile: string): Promise<() => Promise<void>> {
  const lockFile = `${dataFile}.lock`;
  const token = randomBytes(12).toString('hex');
  const release = async () => {
    held.delete(token);
    const text = await readFile(lockFile, 'utf8').catch(() => '');
    if (parseLock(text)?.token === token) await unlink(lockFile).catch(() => undefined);
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await tryCreate(lockFile, token)) {
      held.add(token);
      return release;
    }
    const text = await readFile(lockFile, 'utf8').catch(() => '');
    const owner = parseLock(text);
    if (ownerAlive(owner)) {
      throw new TrackingEndpointError(
        `The data file ${dataFile} is in use by another tracking endpoint (process ${owner!.pid}). ` +
          `Stop that endpoint, or give this one its own data file (option dataFile, CLI --data). If no endpoint is running, delete ${lockFile}.`,
      );
    }
    await moveStale(lockFile, text);
  }
  throw new TrackingEndpointError(`Could not take the lock file ${lockFile}; remove it if no endpoint is running.`);
}
