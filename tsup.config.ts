import { defineConfig } from 'tsup';

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
});
