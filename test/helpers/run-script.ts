/**
 * Runs a TypeScript file in a child Node process (tsx loaded in-process) and collects what it printed.
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

export interface ScriptOptions {
  env?: Record<string, string>;
  /** Kill the child (SIGKILL) after this long. Default 15 s. */
  timeoutMs?: number;
  args?: string[];
  /** Extra Node options before the file, e.g. `['--import', './loader.mjs']`. */
  nodeArgs?: string[];
  /** Called with each chunk the script prints, as it prints it. */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

/** Starts `file` in a node process of its own; `pid` is the script's own process, so it can be signalled. */
export function startScript(file: string, options: ScriptOptions = {}): { pid: number; result: Promise<ScriptResult> } {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', ...(options.nodeArgs ?? []), path.resolve(file), ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = new Promise<ScriptResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      options.onOutput?.('stdout', c.toString());
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      options.onOutput?.('stderr', c.toString());
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
  return { pid: child.pid ?? -1, result };
}

/** Runs `file` to the end and returns what it printed and how it exited. */
export function runScript(file: string, options: ScriptOptions = {}): Promise<ScriptResult> {
  return startScript(file, options).result;
}
