// Mutation testing (StrykerJS 9.6 with its vitest runner; 10.x needs Node 22). Not part of `npm test`:
// run it on the modules you changed, e.g. `npm run mutate -- src/client/retry.ts src/client/redact.ts`.
// The tests it runs are chosen by vitest.mutate.config.ts (see there for what is left out, and why).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // related: false. With it on, static mutants (module-level code: a constant, a Set, a helper
  // defined at load) were reported as survived although the tests kill them (checked by hand on
  // ndjson-import.ts's TYPES and sessions.ts's keyOf; with it off, ndjson-import.ts went from 87.6%
  // to 92.8% on fewer tests). Every other mutant runs only the tests that cover it either way.
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  coverageAnalysis: 'perTest',
  // Static mutants (code run at module load or in beforeAll) are tested with every test of the run,
  // not ignored: see vitest.mutate.config.ts for why.
  ignoreStatic: false,
  reporters: ['clear-text', 'progress', 'json'],
  // scripts/mutate.mjs gives each run a report and a sandbox of its own (STRYKER_SLOT), so that
  // runs on different modules can go on at the same time.
  jsonReporter: { fileName: process.env.STRYKER_REPORT ?? 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  thresholds: { high: 85, low: 70, break: null },
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
  timeoutMS: 20_000,
  tempDirName: process.env.STRYKER_TEMP ?? '.stryker-tmp',
  cleanTempDir: 'always',
  // .stryker-tmp: the sandboxes of other runs going on at the same time (copying them would fail as they go).
  // bench/.data: the benchmark's databases (a gigabyte and more, maybe being written).
  ignorePatterns: ['dist', 'reports', 'bench/results.json', 'bench/.data', 'test/artifacts', '.tracking-data', '.stryker-tmp'],
};
