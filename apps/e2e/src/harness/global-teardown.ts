import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stopProcesses } from './cluster';
import { dropRunDatabase } from './database';
import type { ClusterHolder } from './global-setup';

/** Written by failure-log-reporter.js into the run's folder when a test fails. */
const FAILURE_MARKER = 'failed';

/** Shell tasks of the suite write their pid to `<scratch>/*.pid`: none may outlive the run. */
function stopLeftoverTaskProcesses(scratchDir: string): string[] {
  const leftovers: string[] = [];
  for (const file of readdirSync(scratchDir).filter((name) => name.endsWith('.pid'))) {
    const pid = Number(readFileSync(join(scratchDir, file), 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      process.kill(pid, 'SIGKILL');
      leftovers.push(`${file}: ${pid}`);
    } catch {
      // Already gone, as it should be.
    }
  }
  return leftovers;
}

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as ClusterHolder;
  const cluster = holder.__lannerE2eCluster;
  // Closed first: no spec may start a role again while the cluster stops.
  await cluster?.control.close();
  await stopProcesses(holder.__lannerE2eProcesses ?? []);
  if (!cluster) return;
  const { state } = cluster;
  const leftovers = stopLeftoverTaskProcesses(state.scratchDir);
  if (leftovers.length > 0)
    process.stderr.write(`lanner e2e: task processes still running at the end were killed: ${leftovers.join(', ')}\n`);
  await dropRunDatabase(cluster.serverDatabaseUrl, state.databaseName);
  if (existsSync(join(state.workDir, FAILURE_MARKER)) || process.env['LANNER_E2E_KEEP'] === '1') {
    process.stdout.write(`lanner e2e: logs kept in ${state.workDir}/logs\n`);
  } else {
    rmSync(state.workDir, { recursive: true, force: true });
  }
}
