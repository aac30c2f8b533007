import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.aliases.js';

/**
 * The tests a mutation run uses (`npm run mutate`). Stryker runs them inside its own workers (one
 * vitest thread each) against a sandbox copy of the repository without dist/, and learns which
 * test covers which mutant; a test can only kill a mutant in code it runs in the worker's own
 * process. Left out, because they cannot kill a mutant there and would only slow the run or fail it:
 * - tests that drive a child process (the code under test runs in another process, where no mutant
 *   is active): test/demo, test/samples (each sample's index.mjs runs as a process; the endpoint the
 *   tests start in-process has test/endpoint of its own), test/client/process,
 *   test/faults/bot-shutdown, test/faults/secrets-under-faults, test/faults/awaited-delivery, endpoint/test/cli/serve, test/client/short-lived,
 *   endpoint/test/store/crash (serve killed and restarted as processes) and
 *   endpoint/test/store/ensure-postgres (a shell script);
 * - tests of the built package: test/package/sdk-types (packs dist/, which the sandbox does not
 *   have, and type-checks the tarball) and the API report check (reads dist/);
 * - the browser tests (Chromium runs the page's bundled code): endpoint/test/page;
 * - the lint tests (test/lint: ESLint on code snippets; they run no module of src/).
 *
 * Kept although it also starts processes: test/client/persistence. Its persistDir tests run in
 * process and are what kills the mutants of src/client/persistence.ts; its two closeOnSignals
 * tests run test/client/fixtures/signal-bot.ts as a process, cover no mutant, and so run only in
 * the dry run and for static mutants (below). (They belong with test/client/process.test.ts.)
 *
 * Suites that run a scenario in beforeAll and assert on it in several tests: Stryker counts code
 * that runs outside a test (module load, beforeAll) as covering a "static" mutant, and for a static
 * mutant it runs every test of the run, since it cannot tell which one needs it. We keep that
 * (`ignoreStatic: false` in stryker.config.mjs): ignoring static mutants would mark everything
 * those scenarios exercise as Ignored, which drops it from the score instead of testing it. It
 * costs time on modules with much module-level code, not correctness.
 */
/** `npm run mutate -- --tests=…` narrows the run to some test files or folders. */
const only = process.env.STRYKER_TESTS?.split(',').filter(Boolean).map((path) => (path.endsWith('.ts') ? path : `${path.replace(/\/$/, '')}/**/*.test.ts`));

/** Both packages' tests as one flat list (Stryker's runner takes no vitest projects), with the same aliases as npm test. */
const config = defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['test/**/*.test.ts', 'endpoint/test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    exclude: [
      '**/node_modules/**',
      'test/demo/**',
      'test/samples/**',
      'test/client/process.test.ts',
      'test/faults/bot-shutdown.test.ts',
      'test/faults/secrets-under-faults.test.ts',
      'test/faults/awaited-delivery.test.ts',
      'endpoint/test/cli/serve.test.ts',
      'test/client/short-lived.test.ts',
      'endpoint/test/store/crash.test.ts',
      'endpoint/test/store/ensure-postgres.test.ts',
      'test/package/**',
      'test/api-report.test.ts',
      'endpoint/test/page/**',
      'test/lint/**',
    ],
  },
});
if (only) config.test!.include = only;
export default config;
