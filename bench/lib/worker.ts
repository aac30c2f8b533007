/**
 * Child processes for the benchmarks: each sender, sink and server runs in its own process, so
 * that its CPU time and memory are its own. The parent calls named commands over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { BUILD_DIR, PROFILE_DIR } from './paths.js';

/** A running worker process. */
export interface Worker {
  readonly pid: number;
  /** Runs a command in the worker and resolves with its result; rejects with the worker's error. */
  call<T = unknown>(cmd: string, args?: unknown): Promise<T>;
  /** Asks the worker to exit, and waits for it (a CPU profile, if any, is written on exit). */
  stop(): Promise<void>;
}

interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}


/**
 * Starts worker `name` (`bench/workers/<name>.ts`, as built by `buildWorkers`) in a new Node process with `--expose-gc` (with `BENCH_CPU_PROF=1`,
 * also `--cpu-prof`). Resolves once it is ready.
 */
export function startWorker(name: string, args: string[] = []): Promise<Worker> {
  const file = `${BUILD_DIR}${name}.mjs`;
  const execArgv = ['--expose-gc'];
  if (process.env.BENCH_CPU_PROF === '1') {
    // One directory per worker (a worker's threads each write a profile; the main thread's is the larger file).
    const dir = `${PROFILE_DIR}${name}${args.length > 0 ? `-${args.join('-')}` : ''}-${Date.now()}`;
    mkdirSync(dir, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  const child: ChildProcess = fork(file, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      for (const p of pending.values()) p.reject(new Error(`worker ${name} exited (${code ?? signal}) before answering`));
      pending.clear();
      resolve();
    });
  });
  return new Promise<Worker>((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (message: Reply | 'ready') => {
      if (message === 'ready') {
        resolve({
          pid: child.pid ?? 0,
          call<T>(cmd: string, callArgs?: unknown): Promise<T> {
            if (exited) return Promise.reject(new Error(`worker ${name} has exited`));
            const id = nextId++;
            return new Promise<T>((res, rej) => {
              pending.set(id, { resolve: res as (value: unknown) => void, reject: rej });
              child.send({ id, cmd, args: callArgs });
            });
          },
          async stop() {
            if (!exited) child.send({ id: 0, cmd: '__exit' });
            await exit;
          },
        });
        return;
      }
      const waiter = pending.get(message.id);
      if (waiter === undefined) return;
      pending.delete(message.id);
      if (message.error !== undefined) waiter.reject(new Error(`worker ${name}: ${message.error}`));
      else waiter.resolve(message.result);
    });
    void exit.then(() => reject(new Error(`worker ${name} exited during start-up`)));
  });
}

/** In a worker: answers the parent's commands with `handlers`, then tells the parent it is ready. */
export function serve(handlers: Record<string, (args: any) => unknown>): void {
  process.on('message', (message: { id: number; cmd: string; args: unknown }) => {
    if (message.cmd === '__exit') {
      process.exit(0);
    }
    const handler = handlers[message.cmd];
    Promise.resolve()
      .then(() => {
        if (handler === undefined) throw new Error(`unknown command ${message.cmd}`);
        return handler(message.args);
      })
      .then(
        (result) => process.send?.({ id: message.id, result }),
        (error: Error) => process.send?.({ id: message.id, error: error?.stack ?? String(error) }),
      );
  });
  process.send?.('ready');
}

/** Runs a full garbage collection when the process was started with `--expose-gc`. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
