import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.tools/**',
      '.state/**',
      '**/test-results/**',
      'e2e/artifacts/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // The web app takes the protocol's values from its schema-free entry, so its bundle carries no
    // TypeBox (packages/protocol/src/values.ts says why); types may come from the main entry.
    files: ['apps/web/src/**/*.{ts,tsx}'],
    ignores: ['apps/web/src/**/*.test.{ts,tsx}'],
    rules: {
      // `import { type A }` keeps the import for its side effects (verbatimModuleSyntax): it would
      // bundle the whole module for a type.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@canopy/protocol',
              allowTypeImports: true,
              message:
                "Import the protocol's values from '@canopy/protocol/values' (no schemas in the page).",
            },
          ],
        },
      ],
    },
  },
  {
    // On the server only files/ touches the file system (docs/architecture.md#invariants); tests
    // beside the code and the scripts and tests outside src/ set up files of their own.
    files: ['apps/server/src/**/*.ts'],
    ignores: ['apps/server/src/files/**', 'apps/server/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'node:fs/promises', 'fs', 'fs/promises'].map((name) => ({
            name,
            message: 'Only apps/server/src/files/ imports the file system: use or add a helper there.',
          })),
        },
      ],
    },
  },
  {
    // session-core and the demo generator are pure: no file system, no process, no DOM.
    files: ['packages/session-core/src/**/*.ts', 'packages/demo/src/**/*.ts'],
    ignores: ['packages/session-core/src/**/*.test.ts', 'packages/demo/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['node:*', 'fs', 'path', 'os'] }],
    },
  },
);
