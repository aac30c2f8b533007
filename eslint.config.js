import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/artifacts/'] },
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
);
