import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.aliases.js';

/**
 * `npm test` at the root runs both packages' tests: the middleware package's (test/) and the
 * endpoint's (endpoint/test/), as two projects of one run.
 */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'middleware', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'endpoint', include: ['endpoint/test/**/*.test.ts'] } },
    ],
  },
});
