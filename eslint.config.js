import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './eslint-rules/layers.js';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
const SDKS = {
  regex: '^(botbuilder|botbuilder-core|botframework-[a-z-]+|@microsoft/agents-[a-z-]+)(/|$)',
  message: 'the package never imports a bot SDK (not even its types: both are optional peers). Describe the surface you need structurally in src/middleware/sdk-types.ts',
};

/**
 * The layers (docs/architecture.md), per package. In the middleware package (the repository root):
 * protocol/ ← client/ ← middleware/. In the endpoint package (endpoint/): store/ at the bottom,
 * read/ on it, the page's browser code apart; the endpoint takes the tracking API from the
 * middleware package's public protocol export, and only its cli/ takes the client. An import that
 * points up, sideways, or into the other package's folder fails lint naming the rule (local/layers).
 * The rule resolves each specifier against the importing file, so it does not matter how the path
 * is spelled, and it sees dynamic import() and require() too.
 */
const middlewareLayers = {
  root: ROOT,
  ours: 'src',
  see: 'docs/architecture.md',
  packageRoot: '.',
  otherPackages: ['endpoint'],
  layers: [
    { path: 'src/protocol', rule: 'protocol/ imports nothing of ours', may: [] },
    { path: 'src/client', rule: 'client/ may import protocol/ only', may: ['src/protocol'] },
    { path: 'src/middleware', rule: 'middleware/ may import client/ and protocol/ only', may: ['src/client', 'src/protocol'] },
    { path: 'src/moved', rule: 'moved/ (what the old endpoint subpath and command say) imports nothing of ours', may: [] },
    { path: 'src/index.ts', rule: 'the root entry re-exports protocol/, client/ and middleware/ only', may: ['src/protocol', 'src/client', 'src/middleware'] },
  ],
  // The package's own name resolves to its entries (Node's self-reference): the same layer rules apply.
  selfReferences: {
    'botbuilder-conversation-analytics': 'src/index.ts',
    'botbuilder-conversation-analytics/protocol': 'src/protocol/index.ts',
  },
  packages: [
    SDKS,
    { regex: '^botbuilder-conversation-analytics-endpoint(/|$)', message: 'the middleware package never imports the endpoint package: a bot installs the middleware alone' },
  ],
};

const endpointLayers = {
  root: ROOT,
  ours: 'endpoint/src',
  see: 'docs/architecture.md',
  packageRoot: 'endpoint',
  layers: [
    { path: 'endpoint/src', rule: 'the endpoint may import its own modules and the protocol (botbuilder-conversation-analytics/protocol)', may: [] },
    { path: 'endpoint/src/store', rule: 'store/ is the bottom of the endpoint: it may import the endpoint\'s shared types.ts and errors.ts only', may: ['endpoint/src/types.ts', 'endpoint/src/errors.ts'] },
    { path: 'endpoint/src/read', rule: 'read/ may import store/ and the endpoint\'s shared types.ts and errors.ts only', may: ['endpoint/src/store', 'endpoint/src/types.ts', 'endpoint/src/errors.ts'] },
    {
      path: 'endpoint/src/page/browser',
      rule: 'page/browser/ is bundled for the browser: from the rest of the package it takes only the endpoint\'s shared types (../../types.js, import type)',
      may: [],
      typesFrom: ['endpoint/src/types.ts'],
    },
  ],
  packages: [
    SDKS,
    { regex: '^botbuilder-conversation-analytics(/(?!protocol$).*)?$', message: 'the endpoint takes the tracking API from the middleware package\'s protocol export only (botbuilder-conversation-analytics/protocol); only cli/ uses the client' },
  ],
};

export default tseslint.config(
  { ignores: ['**/dist/', '**/node_modules/', 'coverage/', '**/test/artifacts/', 'reports/', '.stryker-tmp/'] },
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
  // The layers, on every file of each package's src/.
  {
    files: ['src/**'],
    plugins: { local: { rules: { layers } } },
    rules: { 'local/layers': ['error', middlewareLayers] },
  },
  {
    files: ['endpoint/src/**'],
    ignores: ['endpoint/src/cli/**'],
    plugins: { local: { rules: { layers } } },
    rules: { 'local/layers': ['error', endpointLayers] },
  },
  // cli/ is the endpoint's top: it may use all of the endpoint, and the client by the package's name.
  {
    files: ['endpoint/src/cli/**'],
    plugins: { local: { rules: { layers } } },
    rules: { 'local/layers': ['error', { ...endpointLayers, packages: [SDKS] }] },
  },
);
