// How a Switchyard workflow bundle is built: the workflows and the modules preloaded once per worker. Node side.
import { fork } from 'node:child_process';
import { bundleWorkflowCode, DefaultLogger, type BundleOptions } from '@temporalio/worker';
import type { Compiler } from 'webpack';
import type { BundleProcessReply } from './workflow-bundle-process';

export interface SwitchyardBundleSettings extends Pick<BundleOptions, 'failureConverterPath' | 'logger'> {
  /**
   * Bundles the span interceptors: Temporal's OpenTelemetry workflow interceptors, then Switchyard's, which put the
   * attempt and call attributes on the spans Temporal's open. A traced worker needs a bundle built with it.
   * @default false
   */
  readonly tracing?: boolean;
}

/**
 * Workflow interceptor modules of a traced worker, in order: Temporal's interceptor opens each span, Switchyard's
 * (inside it) annotates the open span.
 */
export const TRACING_WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
  require.resolve('./workflows/tracing/tracing-interceptors'),
];

/**
 * Writes every character of the bundle above U+00FF as a `\uXXXX` escape. V8 keeps a script's source for as long
 * as its functions live, in every workflow thread, and one such character (an arrow in a comment) makes it store
 * all of it at two bytes a character. The few there are sit in comments, string and untagged template literals,
 * where the escape means the same; a tagged template's `raw` text would not, and the bundle has none with one.
 * Runs after the source map is inlined (whose base64 is ASCII); columns after an escape on its line shift a little.
 */
const latin1Bundle = {
  apply(compiler: Compiler): void {
    const { Compilation, sources } = compiler.webpack;
    compiler.hooks.thisCompilation.tap('SwitchyardLatin1Bundle', (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: 'SwitchyardLatin1Bundle', stage: Compilation.PROCESS_ASSETS_STAGE_DEV_TOOLING + 1 },
        (assets) => {
          for (const name of Object.keys(assets).filter((asset) => asset.endsWith('.js'))) {
            const code = compilation.getAsset(name)!.source.source().toString();
            const escaped = code.replace(
              /[\u0100-\uffff]/g,
              (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
            );
            if (escaped !== code) compilation.updateAsset(name, new sources.RawSource(escaped));
          }
        },
      );
    });
  },
};

/**
 * The bundler options of Switchyard's workflows. `preloadModules` makes the reusable V8 context evaluate the
 * schemas and pure rules once per worker; without it every new workflow built them again (about a quarter of
 * the workflow thread's busy time per call, when the bench's profile found it).
 *
 * Each workflow thread holds the bundle's whole text, its inlined source map among it, for the worker's life. The
 * map leaves out the sources' text (the SDK maps stack frames with the mappings alone; only `showStackTraceSources`
 * reads the text), and the code is kept to one byte a character (see `latin1Bundle`): a thread's heap holds about
 * 3 MB of bundle text instead of 10 MB, and 25 MB live after start instead of 33 (heap snapshot of one thread).
 */
export function switchyardBundleOptions(options: SwitchyardBundleSettings = {}): BundleOptions {
  return {
    workflowsPath: require.resolve('./workflows'),
    webpackConfigHook: (config) => ({
      ...config,
      devtool: 'inline-nosources-source-map',
      plugins: [...(config.plugins ?? []), latin1Bundle],
    }),
    ...(options.tracing ? { workflowInterceptorModules: [...TRACING_WORKFLOW_INTERCEPTOR_MODULES] } : {}),
    preloadModules: [require.resolve('./workflows/shared-modules')],
    // webpack's build report is noise at a worker's start; its warnings and errors still show.
    logger: options.logger ?? new DefaultLogger('WARN'),
    ...(options.failureConverterPath ? { failureConverterPath: options.failureConverterPath } : {}),
  };
}

/** Bundles Switchyard's workflows (see {@link switchyardBundleOptions}). */
export function bundleSwitchyardWorkflows(options: SwitchyardBundleSettings = {}) {
  return bundleWorkflowCode(switchyardBundleOptions(options));
}

/**
 * Bundles Switchyard's workflows in a process of its own and resolves to the code. A worker that bundles in its own
 * process keeps the bundler's memory for good (about 130 MB of RSS when measured: webpack's modules stay loaded
 * after the build); this one never holds it. A checkout without a build runs the bundler's TypeScript through tsx.
 */
export function bundleSwitchyardWorkflowsApart(
  settings: Omit<SwitchyardBundleSettings, 'logger'> = {},
): Promise<{ readonly code: string; /** The bundler's process. */ readonly builtByPid: number }> {
  const entry = require.resolve('./workflow-bundle-process');
  const execArgv = entry.endsWith('.ts')
    ? [...process.execArgv, '--require', require.resolve('tsx/cjs')]
    : process.execArgv;
  return new Promise((resolve, reject) => {
    const child = fork(entry, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answered = false;
    child.once('message', (reply: BundleProcessReply) => {
      answered = true;
      if ('code' in reply) resolve({ code: reply.code, builtByPid: reply.pid });
      else reject(new Error(`bundling the workflows failed: ${reply.error}`));
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (!answered)
        reject(new Error(`the workflow bundler exited (${signal ?? `code ${code}`}) without a bundle`));
    });
    child.send(settings);
  });
}
