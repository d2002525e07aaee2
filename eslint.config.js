// The linter's rules; CONTRIBUTING.md says why these. Formatting is Prettier's alone.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'data/', 'sandbox-data/', 'bench-profiles/', '.cache/'] },
  {
    // Type-checked: floating and misused promises, unsafe `any` flows, needless assertions.
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // `_`-prefixed names mark what is unused on purpose (a handler's unused argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // An async function without await is how a synchronous body meets a Promise-returning contract
      // (Koa handlers, interface methods); the promise mistakes that matter are no-floating-promises'
      // and no-misused-promises'.
      '@typescript-eslint/require-await': 'off',
      // kafkajs hands its callbacks' helpers (heartbeat, resolveOffset) as bound functions in an
      // object the handler destructures: the rule reads them as methods and reports every one.
      '@typescript-eslint/unbound-method': 'off',
      // Protocol grammars (JSON's whitespace, NUL in fuzzed input) are matched on purpose.
      'no-control-regex': 'off',
      // A variable a callback reads before its one assignment (a client made after the callback) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Node's and Koa's listener APIs take a promise-returning function by design
      // (http.createServer(app.callback())); the other promise misuses stay errors.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, variables: false } }],
    },
  },
  {
    // Tests read answers and events as untyped JSON and assert on their fields: the assertion is the check.
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests rethrow or reject with whatever failed, and print the values they generated.
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // The command prints fields of the admin API's JSON answers, read as they come.
    files: ['src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-control-regex': 'off' },
  },
  {
    files: ['web/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
);
