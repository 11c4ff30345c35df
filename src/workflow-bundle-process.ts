// The workflow bundler's own process: builds one bundle from the settings it is sent and sends back the code.
// Started by bundleSwitchyardWorkflowsApart (workflow-bundle.ts). Node side.
import { bundleSwitchyardWorkflows, type SwitchyardBundleSettings } from './workflow-bundle';

/** What this process sends back: the bundle's code, or why there is none. */
export type BundleProcessReply = { readonly code: string; readonly pid: number } | { readonly error: string };

process.once('message', (settings: Omit<SwitchyardBundleSettings, 'logger'>) => {
  const reply = (message: BundleProcessReply, exitCode: number) =>
    process.send!(message, () => process.exit(exitCode));
  bundleSwitchyardWorkflows(settings).then(
    ({ code }) => reply({ code, pid: process.pid }, 0),
    (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }, 1),
  );
});
