import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, startLanner, type LannerProcess } from '../testing/lanner-process';
import { clusterDirFor } from './embedded-database';
import { runningAsRoot } from './postgres-binaries';

// `lanner server standalone` killed hard (SIGKILL: no exit hook runs) leaves its
// embedded PostgreSQL running on the data dir. The next start on that data dir
// stops it and says so, instead of failing until someone kills it by hand; a
// PostgreSQL whose Lanner is still alive is never touched.

const STARTUP_DEADLINE_MS = 120_000;
const ORPHAN_STOPPED = 'stopped the embedded PostgreSQL that a previous Lanner process left running on this data dir';

const started: LannerProcess[] = [];
const cleanup: string[] = [];
const postgresPids = new Set<number>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

afterAll(async () => {
  for (const lanner of started) {
    if (lanner.child.exitCode === null && lanner.child.signalCode === null) {
      lanner.child.kill('SIGTERM');
      await Promise.race([lanner.exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      lanner.child.kill('SIGKILL');
    }
  }
  // Whatever a failed run left behind must not outlive it.
  for (const pid of postgresPids) if (alive(pid)) process.kill(pid, 'SIGINT');
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
}, 60_000);

function readyStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/health/ready', timeout: 5000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

async function waitUntilReady(lanner: LannerProcess, port: number): Promise<void> {
  let exited = false;
  void lanner.exited.then(() => (exited = true));
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`standalone exited before it was ready:\n${lanner.output()}`);
    if ((await readyStatus(port)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`standalone was not ready within ${STARTUP_DEADLINE_MS / 1000} s:\n${lanner.output()}`);
}

function postmasterPid(clusterDir: string): number {
  const pid = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  postgresPids.add(pid);
  return pid;
}

describe('standalone started after a SIGKILL of the previous one on the same data dir', () => {
  it('stops the embedded PostgreSQL the killed process left running, says so, and starts; a live owner keeps its own', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'lanner-orphan-postgres-'));
    cleanup.push(workDir);
    // As root, PostgreSQL runs as the `postgres` user: it must pass this folder to keep its cluster inside it.
    chmodSync(workDir, 0o755);
    const dataDir = join(workDir, '.lanner');
    const clusterDir = clusterDirFor(dataDir, runningAsRoot());
    if (dirname(clusterDir) !== dataDir) cleanup.push(dirname(clusterDir));
    const [httpPort, databasePort] = await Promise.all([freePort(), freePort()]);
    const env = { LANNER_HTTP_PORT: String(httpPort), LANNER_EMBEDDED_DB_PORT: String(databasePort), LANNER_GRPC_PORT: '0' };

    const first = startLanner('standalone', env, { cwd: workDir });
    started.push(first);
    await waitUntilReady(first, httpPort);
    const orphan = postmasterPid(clusterDir);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    // What made the next start fail: the killed process's PostgreSQL runs on.
    expect(alive(orphan)).toBe(true);

    const second = startLanner('standalone', env, { cwd: workDir });
    started.push(second);
    await waitUntilReady(second, httpPort);
    expect(second.output()).toContain(ORPHAN_STOPPED);
    expect(second.output()).toContain(`"postgresPid":${orphan}`);
    expect(second.output()).toContain('embedded PostgreSQL started, reusing its data');
    expect(alive(orphan)).toBe(false);
    const current = postmasterPid(clusterDir);
    expect(current).not.toBe(orphan);

    // A second Lanner on the same data dir while the first lives: it fails, and the live one's PostgreSQL stays.
    const intruder = startLanner(
      'standalone',
      { ...env, LANNER_HTTP_PORT: String(await freePort()), LANNER_EMBEDDED_DB_PORT: String(await freePort()) },
      { cwd: workDir },
    );
    started.push(intruder);
    expect((await intruder.exited).code).toBe(1);
    expect(intruder.output()).not.toContain(ORPHAN_STOPPED);
    expect(alive(current)).toBe(true);
    expect(await readyStatus(httpPort)).toBe(200);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(alive(current)).toBe(false);
  }, 420_000);
});
