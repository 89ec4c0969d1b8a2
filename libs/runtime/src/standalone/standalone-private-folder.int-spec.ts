import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '@lanner/testing';
import { workspaceRoot } from '../testing/lanner-process';
import { clusterDirFor } from './embedded-database';
import { postgresUserIds, runningAsRoot } from './postgres-binaries';

// `npm start` from a clone in a folder only its owner can enter (`mktemp -d`,
// /root): as root, PostgreSQL runs as the `postgres` user, who can reach neither
// node_modules nor `.lanner/` there. The clone is made of hard links (a second,
// whatever the size of node_modules), so node resolves every module inside it,
// exactly as in a real clone.

const STARTUP_DEADLINE_MS = 90_000;
const CLONED = [
  'bin',
  'apps',
  'libs',
  'tools',
  'proto',
  'node_modules',
  'package.json',
  'nx.json',
  'tsconfig.base.json',
  'tsconfig.json',
];

const cleanup: string[] = [];
const children: ReturnType<typeof spawn>[] = [];

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      child.kill('SIGKILL');
    }
  }
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

/** A clone of the workspace inside a new folder of mode 0700 (what `mktemp -d` makes). */
function privateClone(): string {
  const attempt = (parent: string): string | undefined => {
    mkdirSync(parent, { recursive: true });
    const privateDir = mkdtempSync(join(parent, 'lanner-private-'));
    cleanup.push(privateDir);
    const clone = join(privateDir, 'lanner');
    mkdirSync(clone);
    const copy = spawnSync('cp', ['-al', ...CLONED.map((entry) => join(workspaceRoot, entry)), clone], { encoding: 'utf8' });
    return copy.status === 0 ? clone : undefined;
  };
  // Hard links need one file system: the workspace's own tmp/ (git-ignored) when the system temp dir is another.
  const clone = attempt(tmpdir()) ?? attempt(join(workspaceRoot, 'tmp'));
  if (!clone) throw new Error('could not hard-link a clone of the workspace');
  expect(statSync(dirname(clone)).mode & 0o777).toBe(0o700);
  return clone;
}

interface Started {
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  readonly stop: () => Promise<number | null>;
}

function startStandalone(clone: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, [join(clone, 'bin', 'lanner.js'), 'server', 'standalone'], {
    cwd: clone,
    env: { ...process.env, LANNER_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => output,
    exited,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

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

async function waitUntilReady(standalone: Started, port: number): Promise<void> {
  let exited = false;
  void standalone.exited.then(() => (exited = true));
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`standalone exited before it was ready:\n${standalone.output()}`);
    if ((await readyStatus(port)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`standalone was not ready within ${STARTUP_DEADLINE_MS / 1000} s:\n${standalone.output()}`);
}

describe('standalone started from a clone in a private folder', () => {
  it('runs its embedded PostgreSQL where that PostgreSQL can run, and reuses its data after a restart', async () => {
    const clone = privateClone();
    const dataDir = join(clone, '.lanner');
    const asRoot = runningAsRoot();
    const clusterDir = clusterDirFor(dataDir, asRoot);
    if (dirname(clusterDir) !== dataDir) cleanup.push(dirname(clusterDir));
    const [httpPort, databasePort] = await Promise.all([freePort(), freePort()]);
    const env = { LANNER_HTTP_PORT: String(httpPort), LANNER_EMBEDDED_DB_PORT: String(databasePort), LANNER_GRPC_PORT: '0' };

    const first = startStandalone(clone, env);
    await waitUntilReady(first, httpPort);
    expect(first.output()).toContain('embedded PostgreSQL initialised and started');
    expect(first.output()).toContain(`API:         http://127.0.0.1:${httpPort}/api/v1`);
    if (asRoot) {
      // Out of the postgres user's reach: the cluster and a copy of the binaries live outside the clone.
      expect(clusterDir.startsWith(clone)).toBe(false);
      expect(first.output()).toContain('embedded PostgreSQL keeps its cluster outside it');
      expect(first.output()).toContain('embedded PostgreSQL runs from a copy of its binaries');
      expect(statSync(join(clusterDir, 'PG_VERSION')).uid).toBe(postgresUserIds()?.uid);
      expect(existsSync(join(dirname(clusterDir), 'postgres-native', 'bin', 'postgres'))).toBe(true);
    } else {
      // As its own user PostgreSQL reaches everything: nothing moves.
      expect(clusterDir).toBe(join(dataDir, 'postgres'));
      expect(first.output()).not.toContain('copy of its binaries');
    }
    // The secrets stay in the private data dir either way.
    expect(statSync(join(dataDir, 'postgres-password')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, 'admin-token'), 'utf8').trim().length).toBeGreaterThanOrEqual(43);
    expect(await first.stop()).toBe(0);

    const second = startStandalone(clone, env);
    await waitUntilReady(second, httpPort);
    expect(second.output()).toContain('embedded PostgreSQL started, reusing its data');
    expect(second.output()).toContain('schema up to date');
    expect(await second.stop()).toBe(0);
  }, 240_000);

  it('stops with a message naming the port when the embedded PostgreSQL cannot listen on it', async () => {
    const clone = privateClone();
    const clusterDir = clusterDirFor(join(clone, '.lanner'), runningAsRoot());
    if (dirname(clusterDir) !== join(clone, '.lanner')) cleanup.push(dirname(clusterDir));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const databasePort = typeof address === 'object' && address ? address.port : 0;
    try {
      const standalone = startStandalone(clone, {
        LANNER_HTTP_PORT: String(await freePort()),
        LANNER_EMBEDDED_DB_PORT: String(databasePort),
        LANNER_GRPC_PORT: '0',
      });
      expect(await standalone.exited).toBe(1);
      expect(standalone.output()).toContain(
        `embedded PostgreSQL did not start on 127.0.0.1:${databasePort} with data in ${clusterDir}`,
      );
      expect(standalone.output()).not.toContain(readFileSync(join(clone, '.lanner', 'postgres-password'), 'utf8').trim());
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 120_000);
});
