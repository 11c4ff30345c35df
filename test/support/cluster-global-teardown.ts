// Jest global teardown of the `cluster` suite: stops the local cluster the setup started. Test side.
export default async function clusterGlobalTeardown(): Promise<void> {
  const started = globalThis.switchyardCluster;
  globalThis.switchyardCluster = undefined;
  await started?.control.close();
  await started?.cluster.stop();
}
