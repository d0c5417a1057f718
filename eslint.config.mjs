import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '.tools/**', 'coverage/**', 'test-artifacts/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read configuration from lib/config.ts' },
      ],
    },
  },
  {
    // config.ts is the one reader of process.env; tests, scripts and setup wire the environment.
    files: ['lib/config.ts', 'test/**', 'scripts/**', 'bench/**', '*.js', '*.mjs'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The dashboard: browser ES modules served as they are (no build). Values reach the DOM only as
    // text nodes or attributes, never as HTML.
    files: ['dashboard/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'sessionStorage', 'fetch', 'navigator', 'URLSearchParams', 'Intl', 'Node']
          .concat(['setTimeout', 'clearTimeout', 'console'])
          .map((name) => [name, 'readonly']),
      ),
    },
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^(innerHTML|outerHTML|insertAdjacentHTML|write|writeln)$/]',
          message: 'Build DOM with h() from dom.js; never parse strings as HTML.',
        },
      ],
      'no-restricted-globals': ['error', { name: 'localStorage', message: 'The session lives in sessionStorage only.' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: only the workflow SDK, siblings and types.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|\\./|\\.\\./activities)',
              message: 'Workflows may import only @temporalio/workflow and sibling workflow files.',
              allowTypeImports: true,
            },
            { regex: '^\\.\\./activities', message: 'Import activities as types only (import type).', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);
