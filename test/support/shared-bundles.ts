// Workflow bundles built once per Jest run and shared by every test file (and worker process) as files.
import { existsSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundlePath } from '@temporalio/worker';
import { ENCRYPTING_FAILURE_CONVERTER_PATH } from '../../src/codec/data-converter';
import { switchyardBundleOptions } from '../../src/workflow-bundle';

/**
 * Folder of this run's bundles. The global setup creates it and exports it to the test workers it forks (and
 * they to the worker processes they spawn); the global teardown removes it.
 */
export const BUNDLE_DIRECTORY_VARIABLE = 'SWITCHYARD_TEST_BUNDLE_DIRECTORY';

/** What each shared bundle is built from. */
const BUNDLE_SOURCES = {
  /** `src/workflows`, as a worker without a codec key bundles it. */
  switchyard: switchyardBundleOptions(),
  /** `src/workflows` with the encrypting failure converter, as a worker with a codec key bundles it. */
  'switchyard-encrypting': switchyardBundleOptions({
    failureConverterPath: ENCRYPTING_FAILURE_CONVERTER_PATH,
  }),
  /** The breaker entity plus a gated attempt (test/support/breaker-test-workflows). */
  'breaker-test': { workflowsPath: require.resolve('./breaker-test-workflows') },
  /** The ledger entity plus its callers (test/support/ledger-test-workflows). */
  'ledger-test': { workflowsPath: require.resolve('./ledger-test-workflows') },
  /**
   * A user's own workflows (test/support/user-workflows: the sample agent and probes), with `switchyard/workflow`
   * resolved to this checkout's source as an installed package would resolve it to its build.
   */
  'user-workflows': {
    workflowsPath: require.resolve('./user-workflows'),
    webpackConfigHook: (config: WebpackConfiguration): WebpackConfiguration => ({
      ...config,
      resolve: {
        ...config.resolve,
        // Keeps the SDK's own aliases (its converters, the modules it forbids in workflow code).
        alias: {
          ...(config.resolve?.alias as Record<string, string | false>),
          'switchyard/workflow$': path.resolve(__dirname, '../../src/workflow/index.ts'),
        },
      },
    }),
  },
} as const;

type WebpackConfiguration =
  NonNullable<Parameters<typeof bundleWorkflowCode>[0]['webpackConfigHook']> extends (
    config: infer Config,
  ) => unknown
    ? Config
    : never;

export type SharedBundleName = keyof typeof BUNDLE_SOURCES;

/** Creates this run's bundle folder and exports it; called once by the global setup. */
export function createBundleDirectory(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchyard-test-bundles-'));
  process.env[BUNDLE_DIRECTORY_VARIABLE] = directory;
  return directory;
}

/** This run's bundle folder; a file run outside the global setup (a script, a debugger) gets one of its own. */
function bundleDirectory(): string {
  const directory = process.env[BUNDLE_DIRECTORY_VARIABLE] ?? createBundleDirectory();
  mkdirSync(directory, { recursive: true });
  return directory;
}

/** Where a shared bundle is (or will be) written; a worker process can be handed this path. */
export function sharedBundlePath(name: SharedBundleName): string {
  return path.join(bundleDirectory(), `${name}.js`);
}

/**
 * The bundle `name` as a file, built by the first caller of the run and read by the others. Test files run one
 * at a time (`maxWorkers: 1`), and the file is written whole by rename, so a reader never sees half of it.
 */
export async function sharedWorkflowBundle(name: SharedBundleName): Promise<WorkflowBundlePath> {
  const codePath = sharedBundlePath(name);
  if (!existsSync(codePath)) {
    const { code } = await bundleWorkflowCode({ logger: new DefaultLogger('WARN'), ...BUNDLE_SOURCES[name] });
    const partial = `${codePath}.${process.pid}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, codePath);
  }
  return { codePath };
}
