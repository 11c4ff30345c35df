// Jest global setup of the `temporal` and `reliability` projects: one embedded dev server for the whole run.
import { startDevServer, type DevServer } from '../../src/engine';

declare global {
  var switchyardDevServer: DevServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Both projects name this setup; Jest runs it once per project in the same process.
  if (globalThis.switchyardDevServer) return;
  // Point at a server you already run (e.g. `npm start`) to skip starting one.
  if (process.env.SWITCHYARD_TEST_TEMPORAL_ADDRESS) {
    process.env.TEMPORAL_ADDRESS = process.env.SWITCHYARD_TEST_TEMPORAL_ADDRESS;
    return;
  }
  const server = await startDevServer({ headless: true });
  globalThis.switchyardDevServer = server;
  // Test workers are forked after global setup, so they inherit this.
  process.env.TEMPORAL_ADDRESS = server.address;
}
