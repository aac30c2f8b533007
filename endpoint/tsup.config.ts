import { defineConfig } from 'tsup';
import { writePageAssets } from './src/page/build.js';

// The endpoint package, as ESM and CommonJS with declarations for each. Its dependencies
// (botbuilder-conversation-analytics for the protocol, Kysely and the two database drivers) stay
// imports: tsup leaves every dependency of package.json out of the bundle.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts' } },
  tsconfig: 'tsconfig.build.json',
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  splitting: false,
  shims: true,
  // The page (src/page/browser): one browser script module and one stylesheet in dist/page/, which
  // the endpoint serves from next to its own code.
  onSuccess: () => writePageAssets('dist/page', 'src/page/browser/main.ts'),
});
