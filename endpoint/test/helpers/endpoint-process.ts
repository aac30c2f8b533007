/**
 * An endpoint in a process of its own (`node --import tsx`), so that the load a test sends and
 * the endpoint's own work run side by side, as they do in production: started with the options
 * given as JSON, it prints its URL on the first line and closes on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TrackingEndpointOptions } from '../../src/index.js';

const RUNNER = fileURLToPath(new URL('./endpoint-process-main.ts', import.meta.url));

/** A running endpoint process: its URL, what it logged, and how to stop it. */
export interface EndpointProcess {
  url: string;
  log: string[];
  /** SIGTERM, then waits for the process to exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/** Starts an endpoint process with `options` (functions cannot pass: its log is collected). */
export function startEndpointProcess(options: Omit<TrackingEndpointOptions, 'log'>): Promise<EndpointProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', RUNNER, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const lines = stderr.split('\n');
    stderr = lines.pop() ?? '';
    log.push(...lines);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /^(http:\/\/\S+)\n/.exec(stdout);
      if (line) {
        resolve({
          url: line[1],
          log,
          async stop() {
            const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.kill('SIGTERM');
            await exited;
            clearTimeout(kill);
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`the endpoint process exited (${code}) before listening: ${[...log, stderr].join('\n')}`)));
  });
}
