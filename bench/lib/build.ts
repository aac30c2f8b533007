/**
 * Builds the benchmark workers, with the package's source bundled in, the way the package itself
 * is built (tsup/esbuild, Node 20, no `keepNames`), so that what runs is what users run. (Under
 * tsx every function expression is wrapped to keep its name, which costs CPU in hot paths.)
 * Dependencies (botbuilder, dashbot) stay in node_modules.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { BUILD_DIR } from './paths.js';

const WORKERS_DIR = fileURLToPath(new URL('../workers/', import.meta.url));

/**
 * Builds `bench/workers/<name>.ts` to `<BUILD_DIR>/<name>.mjs` for each name. Rejects with the
 * build's error (for example when a source file does not compile).
 */
export async function buildWorkers(names: readonly string[]): Promise<void> {
  mkdirSync(BUILD_DIR, { recursive: true });
  await build({
    config: false,
    entry: Object.fromEntries(names.map((name) => [name, `${WORKERS_DIR}${name}.ts`])),
    outDir: BUILD_DIR,
    format: ['esm'],
    outExtension: () => ({ js: '.mjs' }),
    target: 'node20',
    platform: 'node',
    splitting: false,
    sourcemap: false,
    dts: false,
    clean: false,
    silent: true,
    skipNodeModulesBundle: true,
  });
}
