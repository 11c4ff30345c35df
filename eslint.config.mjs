// ESLint flat config: typescript-eslint's recommended rules, a guard that keeps I/O out of workflow code, the
// layering of src/ (imports point down the layers; no import cycles), and the bench's imports (entry points only).
import js from '@eslint/js';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './eslint/layers.mjs';

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

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.temporal/', '.bench/', '.venv/', 'coverage/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // Workflow code is replayed and must be deterministic: no I/O, no SDK clients, no worker-side modules.
    // The config schemas and routing rules are bundled into workflows too, so the same rule holds there, as it
    // does for `switchyard/workflow` (src/workflow, bundled into users' workflows) and the examples' workflows.
    files: [
      'src/workflows/**/*.ts',
      'src/workflow/**/*.ts',
      'src/routing/**/*.ts',
      'src/config/**/*.ts',
      'examples/**/workflows.ts',
      'examples/**/workflows/**/*.ts',
    ],
    ignores: ['src/config/load-config.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...NODE_BUILTINS.flatMap((name) => [name, `node:${name}`]).map((name) => ({
              name,
              message: 'Workflow code must not do I/O; move it into an activity.',
            })),
          ],
          patterns: [
            {
              group: [
                'openai',
                'openai/*',
                '@anthropic-ai/*',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
                '@temporalio/testing',
                '@temporalio/envconfig',
              ],
              message: 'Workflow code must not import SDK clients or worker-side Temporal packages.',
            },
            {
              group: [
                '**/activities',
                '**/activities/*',
                '**/providers',
                '**/providers/*',
                '**/client/*',
                '**/engine/*',
                '**/fake-provider/*',
                '**/config/load-config',
              ],
              allowTypeImports: true,
              message: 'Workflow code may import only types from worker-side modules (use `import type`).',
            },
            {
              regex: '^switchyard(/(?!workflow$).*)?$',
              allowTypeImports: true,
              message: "Workflow code imports Switchyard's workflow entry point only: `switchyard/workflow`.",
            },
          ],
        },
      ],
    },
  },
  {
    // The layers of src/: cli and gateway → client and worker → activities → workflows → routing and providers →
    // config. An import up the layers, or any cycle, fails the lint (and so the build).
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX, layers: layersPlugin },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'layers/no-upward-import': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The bench measures Switchyard as users run it: through the package's entry points and its testing seam
    // (src/testing.ts), never src/ internals, so that no code lives on in src/ for the bench alone.
    files: ['bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src(/|$)',
              message:
                'The bench imports Switchyard by its entry points: `switchyard`, `switchyard/worker`, `switchyard/workflow` or `switchyard/testing`.',
            },
            {
              regex: '^switchyard/(?!(worker|workflow|testing)$)',
              message:
                'The bench imports Switchyard by its entry points: `switchyard`, `switchyard/worker`, `switchyard/workflow` or `switchyard/testing`.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
