import { defineConfig } from 'tsup';

// The middleware package: one build, two module formats (most botbuilder apps are CommonJS, newer
// ones ESM), each with its own declaration files (.d.ts for ESM, .d.cts for CommonJS).
// The endpoint is its own package (endpoint/, with a tsup config of its own); what is left here for
// it are two small files that say where it went: the old ./endpoint subpath and the old bin.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    protocol: 'src/protocol/index.ts',
    'endpoint-moved': 'src/moved/endpoint.ts',
    'endpoint-moved-cli': 'src/moved/cli.ts',
  },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts', protocol: 'src/protocol/index.ts', 'endpoint-moved': 'src/moved/endpoint.ts' } },
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  splitting: false,
  shims: true,
});
