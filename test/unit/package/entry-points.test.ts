// The package's entry points: the exports map names them, and each loads only its own side (import graph).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');

interface ExportTarget {
  readonly types: string;
  readonly default: string;
}
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  main: string;
  types: string;
  exports: Record<string, ExportTarget | string>;
  typesVersions: Record<string, Record<string, string[]>>;
};

/** Each entry point's subpath and its source file (`npm run build` compiles `src/x.ts` to `dist/src/x.js`). */
const ENTRY_POINTS = {
  '.': 'src/index.ts',
  './worker': 'src/worker-entry.ts',
  './workflow': 'src/workflow/index.ts',
  './testing': 'src/testing.ts',
} as const;

/** What loading `source` in a fresh Node process puts in its module cache: packages and own files. */
function importGraph(source: string): { packages: Set<string>; files: string[] } {
  // tsx compiles as tsc does here: type-only imports are dropped, so the graph is the built one's.
  const script = `require(${JSON.stringify(path.join(root, source))});
process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const output = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  const loaded = (JSON.parse(output) as string[]).map((file) => path.relative(root, file));
  const packages = new Set(
    loaded
      .map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1])
      .filter(
        (name): name is string =>
          name !== undefined && !['tsx', 'esbuild', 'get-tsconfig', 'resolve-pkg-maps'].includes(name),
      ),
  );
  return { packages, files: loaded.filter((file) => !file.includes('node_modules')) };
}

/** The compiled path of a source file, as package.json names it. */
function compiled(source: string, extension: '.js' | '.d.ts'): string {
  return `./dist/${source.replace(/\.ts$/, extension)}`;
}

test('the exports map names the client, the worker, the workflow and the testing entry points, with their types', () => {
  expect(Object.keys(manifest.exports).sort()).toEqual([
    '.',
    './package.json',
    './testing',
    './worker',
    './workflow',
  ]);
  for (const [subpath, source] of Object.entries(ENTRY_POINTS)) {
    expect(manifest.exports[subpath]).toEqual({
      types: compiled(source, '.d.ts'),
      default: compiled(source, '.js'),
    });
  }
  // `main` / `types` for tools that predate `exports`, and typesVersions for TypeScript's `node` resolution.
  expect(`./${manifest.main}`).toBe(compiled(ENTRY_POINTS['.'], '.js'));
  expect(`./${manifest.types}`).toBe(compiled(ENTRY_POINTS['.'], '.d.ts'));
  expect(manifest.typesVersions['*']).toEqual({
    worker: [compiled(ENTRY_POINTS['./worker'], '.d.ts').slice(2)],
    workflow: [compiled(ENTRY_POINTS['./workflow'], '.d.ts').slice(2)],
    testing: [compiled(ENTRY_POINTS['./testing'], '.d.ts').slice(2)],
  });
});

const WORKER_SIDE_PACKAGES = [
  '@temporalio/worker',
  '@temporalio/core-bridge',
  'webpack',
  'openai',
  '@anthropic-ai/sdk',
];

test('`switchyard` (the client) loads the client SDK and no worker code, provider SDKs or activities', () => {
  const { packages, files } = importGraph(ENTRY_POINTS['.']);
  expect(packages).toContain('@temporalio/client');
  for (const name of WORKER_SIDE_PACKAGES) expect(packages).not.toContain(name);
  // The OpenTelemetry interceptor's client half only: the package's root loads its plugin and worker halves too.
  expect(packages).toContain('@temporalio/interceptors-opentelemetry');
  expect(packages).not.toContain('@temporalio/plugin');
  expect(files).not.toContain('src/worker.ts');
  expect(
    files.filter((file) => /^src\/(activities|providers|metrics|engine|fake-provider)\//.test(file)),
  ).toEqual([]);
});

test('`switchyard/worker` loads the worker, its activities and the provider SDKs', () => {
  const { packages, files } = importGraph(ENTRY_POINTS['./worker']);
  for (const name of WORKER_SIDE_PACKAGES) expect(packages).toContain(name);
  expect(files).toEqual(expect.arrayContaining(['src/worker.ts', 'src/activities/index.ts']));
});

test('`switchyard/workflow` loads only the workflow SDK and workflow-safe code: nothing a workflow bundle refuses', () => {
  const { packages, files } = importGraph(ENTRY_POINTS['./workflow']);
  // The workflow SDK and what it is built on; zod stays out too (validation happens where the call starts).
  expect([...packages].sort()).toEqual([
    '@temporalio/common',
    '@temporalio/workflow',
    'long',
    'ms',
    'nexus-rpc',
  ]);
  const sides = files.map((file) => file.split('/').slice(0, 2).join('/'));
  expect([...new Set(sides)].sort()).toEqual(['src/config', 'src/routing', 'src/workflow', 'src/workflows']);
  // Of the config, only pure modules without zod (see the packages above): the error brand, the failure classes
  // and the conversation helpers.
  expect(files.filter((file) => file.startsWith('src/config/')).sort()).toEqual([
    'src/config/branded-error.ts',
    'src/config/conversation.ts',
    'src/config/failure-class.ts',
  ]);
  expect(files.filter((file) => file.startsWith('src/workflows/'))).not.toContainEqual(
    expect.stringMatching(/routed-call\/|breaker\/|ledger\/|scheduled-generation\//),
  );
});

test('`switchyard/testing` loads the fake provider and the engine, and no worker, provider SDKs or gateway', () => {
  const { packages, files } = importGraph(ENTRY_POINTS['./testing']);
  expect(files).toEqual(expect.arrayContaining(['src/fake-provider/index.ts', 'src/engine/index.ts']));
  for (const name of WORKER_SIDE_PACKAGES) expect(packages).not.toContain(name);
  expect(packages).not.toContain('fastify');
  expect(files).not.toContain('src/worker.ts');
  expect(files.filter((file) => /^src\/(providers|gateway|client|cli)\//.test(file))).toEqual([]);
});
