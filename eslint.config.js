import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers (DESIGN.md): protocol/ ← client/ ← middleware/; endpoint/ uses protocol/ only; cli/ uses
 * anything. An import that points up, or sideways into another product, fails lint naming the rule.
 * `layer(rule, ...folders)` forbids relative imports that reach the named top-level folders of src/.
 */
const layer = (rule, ...folders) => ({
  regex: `^(\\.\\./)+(${folders.join('|')})(/|$)`,
  message: `Layer rule: ${rule} (see DESIGN.md). Move the shared piece down instead of importing up.`,
});
const sdks = {
  regex: '^(botbuilder|botbuilder-core|botframework-[a-z-]+|@microsoft/agents-[a-z-]+)(/|$)',
  message: 'Layer rule: the package never imports a bot SDK (not even its types: both are optional peers). Describe the surface you need structurally in src/middleware/sdk-types.ts.',
};
const restrict = (...patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });

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
  // The layers, one block per folder.
  { files: ['src/protocol/**'], rules: restrict(layer('protocol/ imports nothing of ours', 'client', 'middleware', 'endpoint', 'cli'), sdks) },
  { files: ['src/client/**'], rules: restrict(layer('client/ may import protocol/ only', 'middleware', 'endpoint', 'cli'), sdks) },
  { files: ['src/middleware/**'], rules: restrict(layer('middleware/ may import client/ and protocol/ only', 'endpoint', 'cli'), sdks) },
  { files: ['src/endpoint/**'], rules: restrict(layer('endpoint/ may import protocol/ only', 'client', 'middleware', 'cli'), sdks) },
  {
    // The page runs in a browser: from the rest of the endpoint it takes types only.
    files: ['src/endpoint/page/browser/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          layer('endpoint/ may import protocol/ only', 'client', 'middleware', 'cli'),
          sdks,
          { regex: '^\\.\\./(?!\\.\\./types\\.js$)', message: 'Layer rule: page/browser/ is bundled for the browser; from the rest of the endpoint it imports only the shared types (../../types.js).' },
          { regex: '^\\.\\./\\.\\./types\\.js$', message: 'Layer rule: page/browser/ takes only types from ../../types.js (import type).', allowTypeImports: true },
        ],
      }],
    },
  },
  { files: ['src/cli/**', 'src/index.ts'], rules: restrict(sdks) },
);
