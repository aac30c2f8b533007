import { defineConfig } from 'tsup';
import { writePageAssets } from './src/endpoint/page/build.js';

// One build, two module formats: most botbuilder apps are CommonJS, newer ones ESM.
// Each format gets its own declaration files (.d.ts for ESM, .d.cts for CommonJS).
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    endpoint: 'src/endpoint/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  splitting: false,
  shims: true,
  // The endpoint's database packages are optional dependencies, loaded when the endpoint opens its
  // database (never by the middleware or the client): kept out of the bundle.
  external: ['kysely', 'better-sqlite3', 'pg'],
  // The endpoint's page (src/endpoint/page/browser): one browser script module and one
  // stylesheet in dist/page/, which the endpoint serves from next to its own code.
  onSuccess: () => writePageAssets('dist/page', 'src/endpoint/page/browser/main.ts'),
});
