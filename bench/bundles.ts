// Workflow bundles built once by the orchestrator and loaded by the worker process from files, so the
// worker's memory holds no bundler (as a production worker started from a prebuilt bundle). Bench side.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { bundleSwitchyardWorkflows } from 'switchyard/worker';

export interface BundlePaths {
  /** Switchyard's workflows (`src/workflows`). */
  readonly switchyard: string;
  /** The bench's bare workflow (`bench/workflows`). */
  readonly bare: string;
  /** Deletes the files. */
  remove(): void;
}

export async function buildBundles(): Promise<BundlePaths> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
  const logger = new DefaultLogger('WARN');
  const [switchyard, bare] = await Promise.all([
    bundleSwitchyardWorkflows({ logger }),
    bundleWorkflowCode({ workflowsPath: require.resolve('./workflows'), logger }),
  ]);
  const paths = { switchyard: path.join(directory, 'switchyard.js'), bare: path.join(directory, 'bare.js') };
  writeFileSync(paths.switchyard, switchyard.code);
  writeFileSync(paths.bare, bare.code);
  return { ...paths, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
