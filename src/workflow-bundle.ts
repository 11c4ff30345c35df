// How a Switchyard workflow bundle is built: the workflows and the modules preloaded once per worker. Node side.
import { bundleWorkflowCode, DefaultLogger, type BundleOptions } from '@temporalio/worker';

/**
 * The bundler options of Switchyard's workflows. `preloadModules` makes the reusable V8 context evaluate the
 * schemas and pure rules once per worker; without it every new workflow built them again (about a quarter of
 * the workflow thread's busy time per call, when the bench's profile found it).
 */
export function switchyardBundleOptions(
  options: Pick<BundleOptions, 'failureConverterPath' | 'logger'> = {},
): BundleOptions {
  return {
    workflowsPath: require.resolve('./workflows'),
    preloadModules: [require.resolve('./workflows/shared-modules')],
    // webpack's build report is noise at a worker's start; its warnings and errors still show.
    logger: options.logger ?? new DefaultLogger('WARN'),
    ...(options.failureConverterPath ? { failureConverterPath: options.failureConverterPath } : {}),
  };
}

/** Bundles Switchyard's workflows (see {@link switchyardBundleOptions}). */
export function bundleSwitchyardWorkflows(
  options: Pick<BundleOptions, 'failureConverterPath' | 'logger'> = {},
) {
  return bundleWorkflowCode(switchyardBundleOptions(options));
}
