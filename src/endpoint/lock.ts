/**
 * A lock file next to the data file, so two endpoints never append to the same file (their
 * `seq` numbers would collide). It holds the owner's process id; a lock left behind by a
 * process that no longer runs is taken over.
 */
import { open, readFile, unlink } from 'node:fs/promises';
import { TrackingEndpointError } from './errors.js';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function tryCreate(lockFile: string): Promise<boolean> {
  try {
    const handle = await open(lockFile, 'wx');
    await handle.writeFile(`${process.pid}\n`);
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Takes `${dataFile}.lock` and returns the function that releases it.
 * Rejects with a `TrackingEndpointError` when a running process holds it.
 */
export async function acquireLock(dataFile: string): Promise<() => Promise<void>> {
  const lockFile = `${dataFile}.lock`;
  const release = async () => {
    await unlink(lockFile).catch(() => undefined);
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await tryCreate(lockFile)) return release;
    const pid = Number.parseInt(await readFile(lockFile, 'utf8').catch(() => ''), 10);
    if (Number.isSafeInteger(pid) && pid > 0 && isRunning(pid)) {
      throw new TrackingEndpointError(
        `The data file ${dataFile} is in use by another tracking endpoint (process ${pid}). ` +
          `Stop that endpoint, or give this one its own data file (option dataFile, CLI --data). If no endpoint is running, delete ${lockFile}.`,
      );
    }
    await unlink(lockFile).catch(() => undefined);
  }
  throw new TrackingEndpointError(`Could not take the lock file ${lockFile}; remove it if no endpoint is running.`);
}
