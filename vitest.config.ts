import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.aliases.js';

/**
 * `npm test` at the root runs both packages' tests: the middleware package's (test/) and the
 * endpoint's (endpoint/test/), each as two projects.
 *
 * Most test files run two at a time (`maxWorkers: 2`): they assert what happened, not how fast. The
 * load-sensitive ones below run afterwards, one at a time (vitest puts every project with
 * `maxWorkers: 1` in one sequential group, after the others): those that time a deadline or a pace
 * (exits within `closeTimeoutMs`, a request cut after its timeout, retries at their backoff), those
 * that run a load or a fault scenario whose figures they check, and those that drive whole
 * processes or a browser. A new test file that asserts on time belongs in this list.
 */
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
    'endpoint/test/page/**/*.test.ts',
    'endpoint/test/http/**/*.test.ts',
    'endpoint/test/api/{live,live-feed,track-connection,users-export}.test.ts',
    'endpoint/test/store/{backends,crash,listen,pace-clock,projection,sessions,wait-figures,waits}.test.ts',
    'endpoint/test/cli/{serve,serve-in-process,read-api,forget}.test.ts',
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
      { extends: true, test: { name, include: [TESTS[name]], exclude: ['**/node_modules/**', ...LOAD_SENSITIVE[name]], maxWorkers: 2 } },
      { extends: true, test: { name: `${name}: one at a time`, include: LOAD_SENSITIVE[name], maxWorkers: 1 } },
    ]),
  },
});
