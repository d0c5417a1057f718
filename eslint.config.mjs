import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const PROCESS_ENV = {
  selector: "MemberExpression[object.name='process'][property.name='env']",
  message: 'Read configuration from lib/config.ts',
};

const RAW_DATABASE_ACCESS = [
  {
    selector: 'CallExpression[callee.property.name=/^(query|getRepository|createQueryBuilder)$/]',
    message: 'Reach rows through ctx.data / unitOfWork (tx.repo, tx.sql), or db/unscoped.ts for a cross-tenant path.',
  },
];

const RAW_DATABASE_IMPORTS = {
  paths: [
    { name: 'typeorm', importNames: ['DataSource'], message: 'Import DataSource as a type only.', allowTypeImports: true },
    { name: 'pg', message: 'Connections belong to db/: db/notifications.ts for LISTEN/NOTIFY.' },
  ],
  patterns: [
    {
      regex: '(^|/)db/sql$',
      message:
        'db/sql.ts runs statements past the scope: write them with tx.sql (ScopedSqlBuilder), or db/unscoped.ts for a cross-tenant path.',
    },
  ],
};

/**
 * Layers point one way: api -> domain -> db, activities -> domain, contracts (the shapes api and
 * domain share) and lib below them all. Each folder lists the folders it may not import.
 */
const LAYER_FORBIDS = {
  api: ['activities', 'workers'],
  domain: ['api', 'activities', 'workers'],
  activities: ['api', 'workers'],
  contracts: ['api', 'domain', 'activities', 'workers'],
  db: ['api', 'domain', 'activities', 'workers'],
  lib: ['api', 'domain', 'activities', 'workers'],
  workers: ['api'],
};

const layerRule = (folder) => ({
  files: [`${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: LAYER_FORBIDS[folder].map((below) => ({
          regex: `^(\\.\\./)+${below}(/|$)`,
          message: `${folder}/ may not import ${below}/: layers point one way (docs/architecture.md). Move what both need to contracts/ or lib/.`,
        })),
      },
    ],
  },
});

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
    // One door to the database: domain code reaches rows through ScopedData / the unit of work
    // (tenant and environment applied by db/, impossible to drop); cross-tenant paths use
    // db/unscoped.ts, LISTEN/NOTIFY db/notifications.ts. Raw TypeORM and pg access stays inside
    // db/, for every file of these folders (no exceptions).
    files: ['api/**/*.ts', 'domain/**/*.ts', 'activities/**/*.ts', 'lib/**/*.ts', 'workers/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', PROCESS_ENV, ...RAW_DATABASE_ACCESS],
      '@typescript-eslint/no-restricted-imports': ['error', RAW_DATABASE_IMPORTS],
    },
  },
  ...Object.keys(LAYER_FORBIDS).map(layerRule),
  {
    // Type-aware rules: a promise nobody awaits loses its error (an unhandled rejection kills the
    // process) and its ordering.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Express 5 awaits a handler's promise and hands a rejection to the error middleware, so an
      // async function passed where a void callback is expected (route handlers, middleware) is
      // fine there; every other misuse (a promise in a condition, spread or attribute) stays an error.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
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
        ['window', 'document', 'location', 'sessionStorage', 'fetch', 'navigator', 'URLSearchParams', 'URL', 'Intl', 'Node']
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
