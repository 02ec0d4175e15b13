import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import regexp from 'eslint-plugin-regexp'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'test/artifacts/',
      'bench/results/',
      'bench/.build/',
      'coverage/',
      '.stack/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-control-regex': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // Every scan of caller text is linear (CONTRACT C3): no regular expression that backtracks
    // or moves super-linearly. test/attacks/regexes.test.ts checks each one with recheck too.
    files: ['**/*.ts'],
    ignores: ['test/**', 'bench/**'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false }],
    },
  },
  {
    // The engine knows no API: it reads one definition (defineApi). The shop is one such
    // definition in shop/; the entry points (index.ts, node/, browser/index.ts) and the CLI
    // (bin/) put the two together. Nothing of the engine imports them.
    files: [
      'contract/**/*.ts',
      'console/**/*.ts',
      'check/**/*.ts',
      'db/**/*.ts',
      'resources/**/*.ts',
      'http/**/*.ts',
      'state/**/*.ts',
      'openapi/**/*.ts',
      'sandbox/**/*.ts',
      'server/**/*.ts',
      'browser/start-sandbox.ts',
      'browser/console-panel.ts',
      'browser/storage-persistence.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/shop/*', '**/shop'],
              message:
                'The engine knows no shop: read the API definition (catalog.api, catalog.accounts, catalog.codes) instead.',
            },
            {
              group: [
                '**/bin/*',
                '**/node/*',
                '**/browser/index.js',
                '../index.js',
                '../../index.js',
              ],
              message: 'The engine does not import the entry points or the CLI that compose it.',
            },
          ],
        },
      ],
    },
  },
  prettier,
)
