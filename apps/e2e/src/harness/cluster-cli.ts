// Starts the e2e cluster by hand and keeps it up until Ctrl-C, for exploring a failing
// scenario or for tools/bench/e2e. From the repository root:
//   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register apps/e2e/src/harness/cluster-cli.ts
import { readServiceEnv } from '@lanner/dev-services';
import { startCluster, stopProcesses } from './cluster';
import { dropRunDatabase } from './database';
import { RoleProcess } from './role-process';

async function main(): Promise<void> {
  Object.assign(process.env, readServiceEnv() ?? {});
  const processes: RoleProcess[] = [];
  const cluster = await startCluster(processes);
  const { state } = cluster;
  process.stdout.write(
    [
      `lanner e2e cluster up (${processes.length} processes); Ctrl-C stops it and drops ${state.databaseName}`,
      `LANNER_BENCH_API_URL=${state.apiUrl}`,
      `LANNER_BENCH_TOKEN=${state.adminToken}`,
      `logs: ${state.workDir}/logs`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await cluster.control.close();
    await stopProcesses(processes);
    await dropRunDatabase(cluster.serverDatabaseUrl, state.databaseName);
    process.stdout.write(`stopped; logs kept in ${state.workDir}/logs\n`);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
