import { defineConfig } from 'vitest/config';
import { sourceAliases } from '../vitest.aliases.js';

/** The endpoint package's own tests (`npm test -w endpoint`); the root's `npm test` runs them too. */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
