/** Where the benchmark keeps what it makes. Used by the orchestrator (`bench/run.ts`), not by workers. */
import { fileURLToPath } from 'node:url';

/** The built workers: the usual cache folder under node_modules (ignored by git and eslint). */
export const BUILD_DIR = fileURLToPath(new URL('../../node_modules/.cache/bench-workers/', import.meta.url));

/** CPU profiles written with `BENCH_CPU_PROF=1`, a folder per worker (`*.cpuprofile` is git-ignored). */
export const PROFILE_DIR = fileURLToPath(new URL('../profiles/', import.meta.url));
