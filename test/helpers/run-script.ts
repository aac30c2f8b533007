/**
 * Runs a TypeScript file in a child Node process (through tsx) and collects what it printed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface ScriptResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn to exit. */
  ms: number;
}

const TSX = path.resolve('node_modules/.bin/tsx');

/** Runs `file` with tsx; kills it after `timeoutMs` (then `signal` is SIGKILL). */
export function runScript(file: string, options: { env?: Record<string, string>; timeoutMs?: number; args?: string[] } = {}): Promise<ScriptResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [file, ...(options.args ?? [])], {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}
