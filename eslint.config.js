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
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['web/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
);
