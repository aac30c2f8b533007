import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.aliases.js';

/**
 * `npm test` at the root runs both packages' tests: the middleware package's (test/) and the
 * endpoint's (endpoint/test/), each as two projects.
 *
 * Three groups, one after the other (`sequence.groupOrder`):
 * 1. Most test files, two at a time (`maxWorkers: 2`): they assert what happened, not how fast.
 * 2. TWO_AFTER, two at a time once the first group is done: the browser's page tests and CLI
 *    commands run as processes. They assert layout and output, not time, but each keeps a core
 *    busy (Chromium, a child process): run beside the first group's package installs, which
 *    compile a native addon, they would only wait longer.
 * 3. LOAD_SENSITIVE, one at a time: those that time a deadline or a pace (exits within
 *    `closeTimeoutMs`, a request cut after its timeout, retries at their backoff), those that run
 *    a load or a fault scenario whose figures they check, and those that drive whole processes
 *    whose timing they check. A new test file that asserts on time belongs in this list.
 */
const TWO_AFTER = {
  middleware: [] as string[],
  endpoint: [
    'endpoint/test/page/{access,details,flow,keyboard,layout,page,serve,views}.test.ts',
    'endpoint/test/cli/{serve,forget}.test.ts',
  ],
};

const LOAD_SENSITIVE = {
  middleware: [
    'test/faults/**/*.test.ts',
    'test/samples/**/*.test.ts',
    'test/demo/**/*.test.ts',
    'test/client/{burst,close,concurrency,delivery,delivery-queue,diagnose,idempotency-key,intake,persistence,persistence-store,process,replay,short-lived,signals,track-and-forget,transports,warnings}.test.ts',
    'test/middleware/{robustness,shutdown}.test.ts',
  ],
  endpoint: [
    'endpoint/test/faults/**/*.test.ts',
    'endpoint/test/page/catching-up.test.ts',
    'endpoint/test/http/**/*.test.ts',
    'endpoint/test/api/{live,live-feed,track-connection,users-export}.test.ts',
    'endpoint/test/store/{backends,crash,listen,pace-clock,projection,sessions,wait-figures,waits}.test.ts',
    'endpoint/test/cli/{serve-in-process,read-api}.test.ts',
    'endpoint/test/deploy/**/*.test.ts',
  ],
};

const TESTS = { middleware: 'test/**/*.test.ts', endpoint: 'endpoint/test/**/*.test.ts' };

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    projects: (['middleware', 'endpoint'] as const).flatMap((name) => [
      { extends: true, test: { name, include: [TESTS[name]], exclude: ['**/node_modules/**', ...TWO_AFTER[name], ...LOAD_SENSITIVE[name]], maxWorkers: 2, sequence: { groupOrder: 0 } } },
      ...(TWO_AFTER[name].length === 0 ? [] : [{ extends: true as const, test: { name: `${name}: processes and browser`, include: TWO_AFTER[name], maxWorkers: 2, sequence: { groupOrder: 1 } } }]),
      { extends: true, test: { name: `${name}: one at a time`, include: LOAD_SENSITIVE[name], maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ]),
  },
});
