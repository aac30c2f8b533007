import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './eslint-rules/layers.js';

/**
 * The layers (docs/architecture.md): protocol/ ← client/ ← middleware/; endpoint/ uses protocol/
 * only; cli/ uses anything. An import that points up, or sideways into another product, fails lint
 * naming the rule (local/layers). The rule resolves each specifier against the importing file, so
 * it does not matter how the path is spelled, and it sees dynamic import() and require() too.
 */
const layerRules = {
  root: fileURLToPath(new URL('.', import.meta.url)),
  ours: 'src',
  see: 'docs/architecture.md',
  layers: [
    { path: 'src/protocol', rule: 'protocol/ imports nothing of ours', may: [] },
    { path: 'src/client', rule: 'client/ may import protocol/ only', may: ['src/protocol'] },
    { path: 'src/middleware', rule: 'middleware/ may import client/ and protocol/ only', may: ['src/client', 'src/protocol'] },
    { path: 'src/endpoint', rule: 'endpoint/ may import protocol/ only', may: ['src/protocol'] },
    {
      path: 'src/endpoint/page/browser',
      rule: 'page/browser/ is bundled for the browser: from the rest of the package it takes only the endpoint\'s shared types (../../types.js, import type)',
      may: [],
      typesFrom: ['src/endpoint/types.ts'],
    },
    { path: 'src/cli', rule: 'cli/ may import anything of ours', may: ['src'] },
    { path: 'src/index.ts', rule: 'the root entry re-exports protocol/, client/ and middleware/ only (the endpoint is the ./endpoint subpath)', may: ['src/protocol', 'src/client', 'src/middleware'] },
  ],
  // The package's own name resolves to its root entry (Node's self-reference): the same layer rules apply.
  selfReferences: {
    'botbuilder-conversation-analytics': 'src/index.ts',
    'botbuilder-conversation-analytics/endpoint': 'src/endpoint/index.ts',
  },
  packages: [{
    regex: '^(botbuilder|botbuilder-core|botframework-[a-z-]+|@microsoft/agents-[a-z-]+)(/|$)',
    message: 'the package never imports a bot SDK (not even its types: both are optional peers). Describe the surface you need structurally in src/middleware/sdk-types.ts',
  }],
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/artifacts/', 'reports/', '.stryker-tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setImmediate: 'readonly', clearImmediate: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
        Buffer: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', AbortController: 'readonly',
        AbortSignal: 'readonly', queueMicrotask: 'readonly', __dirname: 'readonly', require: 'readonly',
        module: 'writable', performance: 'readonly', structuredClone: 'readonly', fetch: 'readonly',
        document: 'readonly', window: 'readonly', EventSource: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // The layers, on every file of src/.
  {
    files: ['src/**'],
    plugins: { local: { rules: { layers } } },
    rules: { 'local/layers': ['error', layerRules] },
  },
);
