/** Runs the CLI in a child process, as a user would (`node --import tsx endpoint/src/cli/main.ts …`). */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without the tracking variables of whoever runs the tests, plus `extra`. */
function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['TRACKING_API_KEY', 'TRACKING_API_KEYS', 'TRACKING_BASE_URL', 'TRACKING_PORT', 'TRACKING_DEBUG', 'TRACKING_DATABASE_URL', 'TRACKING_ALLOWED_HOSTS', 'TRACKING_ENABLED']) delete env[name];
  return { ...env, ...extra };
}

/** Starts the CLI; the child is the CLI's own process, so it can be signalled directly. */
export function spawnCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd, env: environment(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs the CLI to completion (killed after `timeoutMs`). */
export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 15_000): Promise<CliResult> {
  const child = spawnCli(args, env);
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
