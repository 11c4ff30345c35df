// The user's own workflows (test/support/user-workflows) bundled as a traced application bundles its workflows:
// with Temporal's OpenTelemetry workflow interceptors and nothing of Switchyard's. Node side.
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

type WebpackConfiguration =
  NonNullable<Parameters<typeof bundleWorkflowCode>[0]['webpackConfigHook']> extends (
    config: infer Config,
  ) => unknown
    ? Config
    : never;

/**
 * Bundles test/support/user-workflows with Temporal's OpenTelemetry workflow interceptor module, `switchyard/workflow`
 * resolved to this checkout's source as an installed package would resolve it to its build. Built in the test's
 * process (not shared): the run's shared bundles are untraced.
 */
export function bundleTracedUserWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: require.resolve('./user-workflows'),
    workflowInterceptorModules: [
      require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    ],
    logger: new DefaultLogger('WARN'),
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
  });
}
