// Starts one counted `lanner server standalone` (embedded PostgreSQL, in-process queue, one
// local worker) in a fresh folder for tools/bench/e2e, and keeps it up until Ctrl-C. From
// the repository root:
//   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/e2e/standalone-cli.ts
// then run the bench with the variables it prints.
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@lanner/testing';

const workspaceRoot = join(__dirname, '..', '..', '..');
const READY_DEADLINE_MS = 180_000;

async function ready(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) });
    return response.status === 200;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'lanner-bench-standalone-'));
  // As root the embedded PostgreSQL runs as `postgres`, which must be able to pass this folder.
  chmodSync(workDir, 0o755);
  const countsDir = join(workDir, 'counts');
  mkdirSync(countsDir);
  const [httpPort, databasePort, grpcPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const logFile = join(workDir, 'standalone.log');
  const output = openSync(logFile, 'a');
  const counter = join(workspaceRoot, 'tools', 'bench', 'e2e', 'counter.cjs');
  // The lanner command sets its own SWC_NODE_PROJECT (an absolute one: this process's may be relative to another folder).
  const { DATABASE_URL: _database, KAFKA_BROKERS: _kafka, SWC_NODE_PROJECT: _project, ...env } = process.env;
  const child = spawn(process.execPath, [join(workspaceRoot, 'bin', 'lanner.js'), 'server', 'standalone'], {
    cwd: workDir,
    env: {
      ...env,
      NODE_OPTIONS: `${env['NODE_OPTIONS'] ?? ''} -r ${counter}`.trim(),
      LANNER_BENCH_COUNTS_DIR: countsDir,
      LANNER_LOG_LEVEL: env['LANNER_LOG_LEVEL'] ?? 'info',
      LANNER_HTTP_PORT: String(httpPort),
      LANNER_EMBEDDED_DB_PORT: String(databasePort),
      LANNER_GRPC_PORT: String(grpcPort),
    },
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  const startedAt = Date.now();
  while (!(await ready(httpPort))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`standalone exited before it was ready; log: ${logFile}`);
    if (Date.now() - startedAt > READY_DEADLINE_MS) throw new Error(`standalone was not ready in time; log: ${logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  process.stdout.write(
    [
      `lanner standalone up (pid ${child.pid}); Ctrl-C stops it and removes ${workDir}`,
      `LANNER_BENCH_API_URL=http://127.0.0.1:${httpPort}`,
      `LANNER_BENCH_TOKEN=${readFileSync(join(workDir, '.lanner', 'admin-token'), 'utf8').trim()}`,
      `LANNER_BENCH_COUNTS_DIR=${countsDir}`,
      `log: ${logFile}`,
      '',
    ].join('\n'),
  );
  const stop = (): void => {
    child.once('exit', () => {
      rmSync(workDir, { recursive: true, force: true });
      process.exit(0);
    });
    child.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
