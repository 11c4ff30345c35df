// Jest global setup of the `cluster` suite: the local production shape (PostgreSQL, four Temporal services), or
// one's own cluster named by SWITCHYARD_TEST_TEMPORAL_ADDRESS. Test side.
import { startLocalCluster, type LocalCluster } from '../../src/engine/temporal-cluster';
import { CONTROL_URL_VARIABLE, startClusterControl, type ClusterControl } from './cluster-control';

declare global {
  var switchyardCluster: { cluster: LocalCluster; control: ClusterControl } | undefined;
}

export default async function clusterGlobalSetup(): Promise<void> {
  if (globalThis.switchyardCluster) return;
  if (process.env.SWITCHYARD_TEST_TEMPORAL_ADDRESS) {
    process.env.TEMPORAL_ADDRESS = process.env.SWITCHYARD_TEST_TEMPORAL_ADDRESS;
    process.stderr.write(`\n[cluster] using the cluster at ${process.env.TEMPORAL_ADDRESS}\n`);
    return;
  }
  const startedAt = Date.now();
  const cluster = await startLocalCluster({
    ...(process.env.SWITCHYARD_CLUSTER_LOG_DIR
      ? { logDirectory: process.env.SWITCHYARD_CLUSTER_LOG_DIR }
      : {}),
    log: (line) => process.stderr.write(`[cluster] ${line}\n`),
  });
  const control = await startClusterControl(cluster);
  globalThis.switchyardCluster = { cluster, control };
  // Test files run in processes forked after this, so they inherit both.
  process.env.TEMPORAL_ADDRESS = cluster.address;
  process.env[CONTROL_URL_VARIABLE] = control.url;
  process.stderr.write(
    `[cluster] Temporal ${cluster.server.version} (frontend, history, matching, worker) on PostgreSQL ` +
      `${cluster.postgres.majorVersion} at ${cluster.address}, up in ${Date.now() - startedAt} ms\n`,
  );
}
