// Jest global teardown of the `temporal` and `reliability` projects: stops the dev server and removes the bundles.
import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  await globalThis.switchyardDevServer?.stop();
  globalThis.switchyardDevServer = undefined;
  if (globalThis.switchyardBundleDirectory) {
    rmSync(globalThis.switchyardBundleDirectory, { recursive: true, force: true });
    globalThis.switchyardBundleDirectory = undefined;
  }
}
