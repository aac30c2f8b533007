import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests a mutation run uses (`npm run mutate`). Stryker runs them inside its own workers and
 * learns which test covers which mutant, so a test can only kill a mutant in code it runs in the
 * worker's own process. Left out, because they cannot kill a mutant there and would only slow the run:
 * - tests that drive a child process (the code under test runs in another process): test/demo,
 *   test/client/process, test/faults/bot-shutdown, test/faults/secrets-under-faults, test/cli/serve;
 * - the browser tests (Chromium runs the page's bundled code): test/endpoint/page;
 * - the API report check (reads dist/).
 */
export default mergeConfig(base, defineConfig({
  test: {
    exclude: [
      'node_modules/**',
      'test/demo/**',
      'test/client/process.test.ts',
      'test/faults/bot-shutdown.test.ts',
      'test/faults/secrets-under-faults.test.ts',
      'test/cli/serve.test.ts',
      'test/endpoint/page/**',
      'test/api-report.test.ts',
    ],
  },
}));
