import { join } from 'node:path';
import { Cluster, startCluster } from './cluster';
import { CLUSTER_STATE_VARIABLE } from './cluster-state';
import { RoleProcess } from './role-process';

/** Shared with global-teardown.ts, which Jest runs in this same process. */
export interface ClusterHolder {
  __lannerE2eCluster?: Cluster;
  __lannerE2eProcesses?: RoleProcess[];
}

export default async function globalSetup(): Promise<void> {
  const holder = globalThis as ClusterHolder;
  // Kept before the start finishes, so a teardown after an interrupted start still stops them.
  holder.__lannerE2eProcesses = [];
  const startedAt = Date.now();
  const cluster = await startCluster(holder.__lannerE2eProcesses);
  holder.__lannerE2eCluster = cluster;
  process.env[CLUSTER_STATE_VARIABLE] = join(cluster.state.workDir, 'cluster.json');
  process.stdout.write(
    `\nlanner e2e: ${cluster.processes.length} role processes ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s; logs in ${cluster.state.workDir}/logs\n`,
  );
}
