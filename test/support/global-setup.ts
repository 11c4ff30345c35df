// Jest global setup of the `temporal` and `reliability` projects: one embedded dev server and one set of workflow
// bundles for the whole run.
import { startDevServer, type DevServer } from '../../src/engine';
import { createBundleDirectory, sharedWorkflowBundle } from './shared-bundles';

declare global {
  var switchyardDevServer: DevServer | undefined;
  var switchyardBundleDirectory: string | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Both projects name this setup; Jest runs it once per project in the same process.
  if (globalThis.switchyardBundleDirectory) return;
  // Test workers are forked after global setup, so they inherit the folder (and the address below).
  globalThis.switchyardBundleDirectory = createBundleDirectory();
  // Nearly every file runs Switchyard's own workflows: bundle them while the server starts. The other bundles
  // are built by the first file that needs them, in the same folder.
  const bundled = sharedWorkflowBundle('switchyard');
  // Point at a server you already run (e.g. `npm start`) to skip starting one.
  if (process.env.SWITCHYARD_TEST_TEMPORAL_ADDRESS) {
    process.env.TEMPORAL_ADDRESS = process.env.SWITCHYARD_TEST_TEMPORAL_ADDRESS;
  } else {
    const [server] = await Promise.all([startDevServer({ headless: true }), bundled]);
    globalThis.switchyardDevServer = server;
    process.env.TEMPORAL_ADDRESS = server.address;
  }
  await bundled;
}
