// ESLint with type information (typescript-eslint's project service: each file is checked with the
// tsconfig.json nearest to it), the import boundaries of docs/architecture.md, and Prettier's
// settings last so that no lint rule argues with the formatter. `npm run lint` runs it.
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import boundaries from './scripts/lint/import-boundaries.mjs';
import testSizes from './scripts/lint/test-function-size.mjs';
import transactions from './scripts/lint/transaction-executor.mjs';

const legwork = { rules: { ...boundaries.rules, ...testSizes.rules, ...transactions.rules } };

const JS = ['**/*.js', '**/*.mjs', '**/*.cjs'];
/** Tests: fixtures and JSON answers are typed as loosely as the assertion needs. */
const TESTS = ['test/**', '**/*.spec.ts', 'sdk/test/**', 'tools/test/**'];
/** Programs around the server (and tests): they read our own JSON answers, so `any` flowing from JSON.parse is not chased there. */
const PROGRAMS = [...TESTS, 'tools/**', 'bench/**', 'chaos/**', 'scripts/**', 'sdk/examples/**'];
/** Everything held to the sizes a reader can hold: the server, the packages, the programs around it, the console and every test. */
const SIZED = [
  'src/**/*.ts',
  'packages/*/src/**/*.ts',
  'tools/**/*.ts',
  'chaos/**/*.ts',
  'bench/**/*.ts',
  'sdk/{src,test,examples}/**/*.ts',
  'console/src/**/*.{ts,tsx}',
  'test/**/*.{ts,js}',
  '**/*.spec.ts',
];
const FUNCTION_SIZE = { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true };
/** Where reading the environment is the point: the one config loader, and the programs around the server. */
const ENV_READERS = ['src/common/config/**', 'test/**', '**/*.spec.ts', 'tools/**', 'bench/**', 'chaos/**', 'scripts/**', 'sdk/examples/**', 'sdk/test/**'];

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/dist-test/**',
      'dist-tools/**',
      'coverage/**',
      '.data/**',
      'bench/.build/**',
      'bench/.exp/**',
      'bench/results/**',
      'chaos/.build/**',
      'test/fixtures/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { legwork },
    rules: {
      'legwork/import-boundaries': 'error',
      'legwork/transaction-executor': 'error',
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false }],
      '@typescript-eslint/no-explicit-any': 'error',
      // ws hands a Buffer with its default binaryType ('nodebuffer'); its RawData type also lists the other binaryTypes' shapes.
      '@typescript-eslint/no-base-to-string': ['error', { ignoredTypeNames: ['Error', 'RegExp', 'URL', 'URLSearchParams', 'RawData'] }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // Dropping `async` from a function that throws turns its rejection into a synchronous throw: a change of behaviour, not of style.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Sizes a reader can hold: no file over 400 lines, no function over 60.
    files: SIZED,
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', FUNCTION_SIZE],
    },
  },
  {
    // Tests: legwork/max-lines-per-test-function (scripts/lint/test-function-size.mjs) counts as the core rule, but a describe-like call's callback is a group, not a function.
    files: TESTS,
    rules: {
      'max-lines-per-function': 'off',
      'legwork/max-lines-per-test-function': ['error', { ...FUNCTION_SIZE, groups: ['describe', 'suite', 'describeBothDatabases'] }],
    },
  },
  {
    // The sdk's tests and examples are compiled by sdk/tsconfig.test.json, which the project service does not look for.
    files: ['sdk/test/**/*.ts', 'sdk/examples/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './sdk/tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    files: PROGRAMS,
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: TESTS,
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      // A focused test left in silently skips the rest of its file.
      'no-restricted-properties': ['error', ...['describe', 'it', 'test'].map((object) => ({ object, property: 'only', message: 'Commit no focused test.' }))],
    },
  },
  {
    // The protocol package's tests are compiled by the root tsconfig.json (its own covers src only).
    files: ['packages/protocol/test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // The protocol package runs in browsers too (the operator console bundles it; its test/browser-bundle.spec.ts
    // checks the bundle): no Node module and no Node global in its source. In Node it reaches OpenSSL at run
    // time (src/node-crypto.ts, through globalThis), never by an import a bundler would follow.
    files: ['packages/protocol/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinModules.map((name) => ({ name, message: 'The protocol package runs in browsers: no Node module.' })),
          patterns: [{ group: ['node:*'], message: 'The protocol package runs in browsers: no Node module.' }],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['Buffer', 'process', 'require', 'module', '__dirname', '__filename', 'global', 'setImmediate'].map((name) => ({
          name,
          message: 'The protocol package runs in browsers: Uint8Array and src/encoding.ts, not Node globals.',
        })),
      ],
    },
  },
  {
    files: ['console/src/**'],
    languageOptions: { globals: { ...globals.browser } },
    // Preact ignores what an event handler returns; the console's async handlers catch their own failures.
    rules: { '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }] },
  },
  {
    // Decorated classes: Nest reads constructor parameter types at run time (emitDecoratorMetadata), so an
    // injected class must stay a value import even when the code names it only as a type.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'chaos/**/*.ts'],
    languageOptions: { parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true } },
  },
  {
    files: ['src/**', 'migrations/**', 'sdk/src/**', 'console/src/**', 'packages/*/src/**'],
    ignores: ENV_READERS,
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through APP_CONFIG (src/common/config/config.ts), not process.env.',
        },
      ],
    },
  },
  {
    files: ['**/domain/**'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: 'domain code is pure: time, configuration and I/O are parameters.' }],
    },
  },
  {
    files: JS,
    extends: [tseslint.configs.disableTypeChecked],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.cjs', 'jest.config.js', 'test/summary-reporter.js', 'test/slow-first-sequencer.js', 'scripts/sign-in-example.js'],
    languageOptions: { sourceType: 'commonjs' },
    // `const WebSocket = require('ws')` is the usual spelling, whatever Node's own global is.
    rules: { 'no-redeclare': ['error', { builtinGlobals: false }] },
  },
  prettier,
);
