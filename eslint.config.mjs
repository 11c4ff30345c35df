// ESLint flat config: typescript-eslint's recommended rules, plus a guard that keeps I/O out of workflow code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
