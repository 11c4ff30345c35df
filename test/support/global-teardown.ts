// Jest global teardown of the `temporal` project: stops the dev server the setup started.
export default async function globalTeardown(): Promise<void> {
  await globalThis.switchyardDevServer?.stop();
  globalThis.switchyardDevServer = undefined;
}
