import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@lanner/testing';
import { CLUSTER_STATE_VARIABLE, type ClusterState } from './cluster-state';
import { lannerBin } from './role-process';

const READY_DEADLINE_MS = 120_000;

/** Shared with standalone-teardown.ts, which Jest runs in this same process. */
export interface StandaloneHolder {
  __lannerStandalone?: { child: ChildProcess; workDir: string; exited: Promise<void> };
}

function ready(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/health/ready', timeout: 2000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('error', () => resolve(false));
    request.on('timeout', () => request.destroy());
  });
}

/**
 * The e2e subset against `lanner server standalone`, exactly as `npm start` runs it: one
 * process on embedded PostgreSQL, the in-process queue and one local worker over loopback
 * gRPC, with its data in a fresh folder. The specs see the same ClusterState as with the
 * distributed cluster, minus the control endpoint (specs that restart roles are not in the subset).
 */
export default async function standaloneSetup(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'lanner-e2e-standalone-'));
  // As root, the embedded PostgreSQL runs as the `postgres` user: when it can pass this folder, its cluster
  // stays inside it (and goes with it), rather than under /var/lib/lanner where it would outlive the run.
  chmodSync(workDir, 0o755);
  const scratchDir = join(workDir, 'scratch');
  const logDir = join(workDir, 'logs');
  mkdirSync(scratchDir);
  mkdirSync(logDir);
  chmodSync(scratchDir, 0o777);
  const [httpPort, databasePort, grpcPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const logFile = join(logDir, 'standalone.log');
  const output = openSync(logFile, 'a');
  const child = spawn(process.execPath, [lannerBin, 'server', 'standalone'], {
    cwd: workDir,
    env: {
      ...process.env,
      LANNER_LOG_LEVEL: process.env['LANNER_E2E_LOG_LEVEL'] ?? 'info',
      LANNER_HTTP_PORT: String(httpPort),
      LANNER_EMBEDDED_DB_PORT: String(databasePort),
      LANNER_GRPC_PORT: String(grpcPort),
      LANNER_TIMER_INTERVAL_MS: '200',
      // Kestra's envs and globals, read by the corpus flows context/envs-* and context/globals-*.
      ENV_CORPUS_REGION: 'eu-west',
      LANNER_EXPRESSION_GLOBALS: '{"team": "data", "limits": {"rows": 100}}',
    },
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  (globalThis as StandaloneHolder).__lannerStandalone = { child, workDir, exited };

  const startedAt = Date.now();
  while (!(await ready(httpPort))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`standalone exited before it was ready; log: ${logFile}`);
    if (Date.now() - startedAt > READY_DEADLINE_MS)
      throw new Error(`standalone was not ready within ${READY_DEADLINE_MS / 1000} s; log: ${logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const state: ClusterState = {
    apiUrl: `http://127.0.0.1:${httpPort}`,
    adminToken: readFileSync(join(workDir, '.lanner', 'admin-token'), 'utf8').trim(),
    scratchDir,
    workDir,
    logFiles: { standalone: logFile },
    databaseName: 'embedded',
    kafkaNamespace: '',
    controllerGrpcPort: grpcPort,
    control: { url: '', token: '' },
  };
  const stateFile = join(workDir, 'cluster.json');
  writeFileSync(stateFile, JSON.stringify(state));
  process.env[CLUSTER_STATE_VARIABLE] = stateFile;
  process.stdout.write(
    `\nlanner e2e (standalone): ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s; log in ${logFile}\n`,
  );
}
