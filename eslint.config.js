import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'docs/api/**', 'demo/public/**', 'bench/results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly', process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        URL: 'readonly', fetch: 'readonly', Response: 'readonly', Request: 'readonly', Headers: 'readonly',
        AbortController: 'readonly', AbortSignal: 'readonly', location: 'readonly', document: 'readonly',
        window: 'readonly', performance: 'readonly', globalThis: 'readonly', TextEncoder: 'readonly',
        Buffer: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
