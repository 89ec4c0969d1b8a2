// Starts the e2e cluster by hand and keeps it up until Ctrl-C, for exploring a failing
// scenario or for tools/bench/e2e. From the repository root:
//   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register apps/e2e/src/harness/cluster-cli.ts
// With LANNER_BENCH_COUNTS=1 every role process is preloaded with tools/bench/e2e/counter.cjs
// and the variables the bench needs to count are printed too.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readServiceEnv } from '@lanner/dev-services';
import { startCluster, stopProcesses } from './cluster';
import { dropRunDatabase } from './database';
import { RoleProcess, workspaceRoot } from './role-process';

async function main(): Promise<void> {
  Object.assign(process.env, readServiceEnv() ?? {});
  const countsDir = process.env['LANNER_BENCH_COUNTS'] === '1' ? mkdtempSync(join(tmpdir(), 'lanner-bench-counts-')) : undefined;
  if (countsDir) {
    // Role processes inherit this environment (cluster.ts starts them from it).
    process.env['LANNER_BENCH_COUNTS_DIR'] = countsDir;
    const counter = join(workspaceRoot, 'tools', 'bench', 'e2e', 'counter.cjs');
    process.env['NODE_OPTIONS'] = `${process.env['NODE_OPTIONS'] ?? ''} -r ${counter}`.trim();
  }
  const processes: RoleProcess[] = [];
  const cluster = await startCluster(processes);
  const { state } = cluster;
  process.stdout.write(
    [
      `lanner e2e cluster up (${processes.length} processes); Ctrl-C stops it and drops ${state.databaseName}`,
      `LANNER_BENCH_API_URL=${state.apiUrl}`,
      `LANNER_BENCH_TOKEN=${state.adminToken}`,
      `logs: ${state.workDir}/logs`,
      ...(countsDir ? [`LANNER_BENCH_COUNTS_DIR=${countsDir}`, `LANNER_BENCH_DATABASE=${state.databaseName}`] : []),
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
