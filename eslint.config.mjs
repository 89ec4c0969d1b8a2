// Lint rules for the whole workspace. The module-boundary rule is the one that
// keeps the architecture honest: pure libraries never import I/O libraries,
// apps only boot role modules, and no app imports another app.
import nx from '@nx/eslint-plugin';
import prettierRecommended from 'eslint-plugin-prettier/recommended';

// The pure domain libraries (tag type:domain): their rules are functions of their inputs,
// so they read no clock, no randomness, no timers and no Node module. Specs may.
const DOMAIN_SOURCES = [
  'libs/access/src/**/*.ts',
  'libs/capacity/src/**/*.ts',
  'libs/expressions/src/**/*.ts',
  'libs/model/src/**/*.ts',
  'libs/state-machine/src/**/*.ts',
  'libs/topology/src/**/*.ts',
  'libs/worker-selector/src/**/*.ts',
  'libs/worker-session/src/**/*.ts',
];
const NODE_BUILTINS = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    ignores: ['**/dist', '**/node_modules', '**/generated/**', '**/.nx', '**/tmp', 'apps/ui/src/api/schema.d.ts'],
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          banTransitiveDependencies: true,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:role', 'type:runtime'] },
            {
              sourceTag: 'type:role',
              onlyDependOnLibsWithTags: ['type:runtime', 'type:adapter', 'type:domain', 'type:contract', 'type:testing'],
            },
            {
              sourceTag: 'type:runtime',
              onlyDependOnLibsWithTags: ['type:adapter', 'type:domain', 'type:contract', 'type:testing'],
            },
            { sourceTag: 'type:adapter', onlyDependOnLibsWithTags: ['type:adapter', 'type:domain', 'type:contract'] },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:contract'] },
            { sourceTag: 'type:contract', onlyDependOnLibsWithTags: ['type:contract'] },
            {
              sourceTag: 'type:tool',
              onlyDependOnLibsWithTags: [
                'type:tool',
                'type:runtime',
                'type:adapter',
                'type:domain',
                'type:contract',
                'type:testing',
              ],
            },
            // The end-to-end suite is a user: it talks to the system over REST and gRPC only.
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contract', 'type:tool', 'type:testing'] },
            // Test support (@lanner/testing) stands alone; which files may import it is ruled below.
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared', 'scope:e2e'] },
            // Each role sees only shared libraries; only standalone combines roles, and the api
            // process embeds the indexer (ARCHITECTURE.md: `--no-indexer` splits it out).
            { sourceTag: 'scope:api', onlyDependOnLibsWithTags: ['scope:api', 'scope:shared'] },
            { sourceTag: 'scope:api-process', onlyDependOnLibsWithTags: ['scope:api', 'scope:indexer', 'scope:shared'] },
            { sourceTag: 'scope:executor', onlyDependOnLibsWithTags: ['scope:executor', 'scope:shared'] },
            { sourceTag: 'scope:controller', onlyDependOnLibsWithTags: ['scope:controller', 'scope:shared'] },
            { sourceTag: 'scope:scheduler', onlyDependOnLibsWithTags: ['scope:scheduler', 'scope:shared'] },
            { sourceTag: 'scope:indexer', onlyDependOnLibsWithTags: ['scope:indexer', 'scope:shared'] },
            // Workers talk to controllers only: never to the repository or the queue.
            {
              sourceTag: 'scope:worker',
              onlyDependOnLibsWithTags: ['scope:worker', 'scope:shared'],
              notDependOnLibsWithTags: ['platform:server'],
            },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name=/^(it|describe|test)$/][callee.property.name='only']",
          message: 'Focused tests (.only) must not be committed.',
        },
        {
          selector: "CallExpression[callee.object.name=/^(it|describe|test)$/][callee.property.name='skip']",
          message: 'Skipped tests must not be committed.',
        },
        {
          selector: 'CallExpression[callee.name=/^(xit|xdescribe|xtest|fit|fdescribe)$/]',
          message: 'Focused or skipped tests must not be committed.',
        },
      ],
    },
  },
  {
    // @lanner/testing is test support: specs, testing folders, the e2e suite and the benchmarks only.
    files: ['**/*.ts'],
    ignores: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      '**/testing/**',
      'apps/e2e/**',
      'tools/bench/**',
      'libs/testing/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@lanner/testing',
              message: 'Test support: import it only from specs, a testing/ folder, apps/e2e or tools/bench.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Jest configs share the workspace preset by a relative require.
    files: ['**/jest.config.js', '**/jest.int.config.js', '**/jest.e2e.config.js', '**/jest.standalone.config.js'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: DOMAIN_SOURCES,
    ignores: ['**/*.spec.ts', '**/spec/**', '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...NODE_BUILTINS.map((name) => ({ name, message: 'A domain library does no I/O: no Node module here.' })),
            {
              name: '@lanner/testing',
              message: 'Test support: import it only from specs, a testing/ folder, apps/e2e or tools/bench.',
            },
          ],
          patterns: [{ group: ['node:*'], message: 'A domain library does no I/O: no Node module here.' }],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'A domain library reads no clock: take `now` as an input.',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'A domain library reads no clock: take `now` as an input.',
        },
        {
          selector: "MemberExpression[object.name='Math'][property.name='random']",
          message: 'A domain library draws no randomness: take it as an input.',
        },
        {
          selector: 'CallExpression[callee.name=/^(setTimeout|setInterval|setImmediate|queueMicrotask)$/]',
          message: 'A domain library sets no timer: return an effect and let the adapter wait.',
        },
      ],
    },
  },
  // Formatting is part of lint: `npm run lint` fails on code Prettier would change.
  prettierRecommended,
];
