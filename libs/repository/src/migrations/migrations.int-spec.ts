import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DatabaseUnavailable } from '../errors';
import { createTestDatabase, type TestDatabase } from '../testing/test-database';
import { applyMigrations } from './apply-migrations';
import { createMigration } from './create-migration';
import { listMigrations, migrationChecksum } from './migration-folder';
import { MIGRATIONS_DIR, SCHEMA_FILE } from './paths';

describe('migrations on a real PostgreSQL', () => {
  let database: TestDatabase;
  let client: Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    client = new Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  it('creates every table of the schema', async () => {
    const { rows } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(rows.map((row) => row.table_name)).toEqual(
      expect.arrayContaining([
        'flows',
        'executions',
        'task_runs',
        'task_run_attempts',
        'logs',
        'worker_queues',
        'running_jobs',
        'service_instances',
        'api_tokens',
      ]),
    );
  });

  it('records the init migration as prisma migrate deploy does, with the checksum of its file', async () => {
    const [init] = listMigrations(MIGRATIONS_DIR);
    const { rows } = await client.query(
      'SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count, logs FROM _prisma_migrations ORDER BY started_at',
    );
    expect(rows).toHaveLength(listMigrations(MIGRATIONS_DIR).length);
    expect(rows[0]).toMatchObject({
      migration_name: init.name,
      checksum: init.checksum,
      rolled_back_at: null,
      applied_steps_count: 1,
      logs: null,
    });
    expect(rows[0].checksum).toBe(migrationChecksum(readFileSync(join(MIGRATIONS_DIR, init.name, 'migration.sql'), 'utf8')));
    expect(rows[0].finished_at).toBeInstanceOf(Date);
  });

  it('applies nothing the second time', async () => {
    const again = await applyMigrations(database.url);
    expect(again.applied).toEqual([]);
    const { rows } = await client.query('SELECT count(*)::int AS n FROM _prisma_migrations');
    expect(rows[0].n).toBe(listMigrations(MIGRATIONS_DIR).length);
  });

  it('names DATABASE_URL, not the password, when the database cannot be reached', async () => {
    const unreachable = 'postgresql://lanner:s3cr3t-pw@127.0.0.1:1/lanner';
    const failure = applyMigrations(unreachable);
    await expect(failure).rejects.toBeInstanceOf(DatabaseUnavailable);
    await expect(applyMigrations(unreachable)).rejects.toThrow(
      /cannot reach the database at postgresql:\/\/lanner:\*\*\*@127\.0\.0\.1:1\/lanner .*check DATABASE_URL/,
    );
    await expect(applyMigrations('not-a-url')).rejects.toThrow('DATABASE_URL is not a valid URL');
  });

  describe('creating a migration from a schema change', () => {
    let folder: string;
    beforeAll(() => {
      folder = mkdtempSync(join(tmpdir(), 'lanner-create-migration-'));
      cpSync(MIGRATIONS_DIR, join(folder, 'migrations'), { recursive: true });
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it('writes nothing when schema.prisma matches the last migration', async () => {
      const created = await createMigration('noop', database.url, { migrationsDir: join(folder, 'migrations') });
      expect(created).toBeNull();
      expect(listMigrations(join(folder, 'migrations'))).toHaveLength(listMigrations(MIGRATIONS_DIR).length);
    });

    it('writes the SQL of the change, which then applies', async () => {
      const changed = readFileSync(SCHEMA_FILE, 'utf8').replace(
        'model ClusterLock {\n  name      String   @id',
        'model ClusterLock {\n  name      String   @id\n  purpose   String?',
      );
      const schemaFile = join(folder, 'schema.prisma');
      writeFileSync(schemaFile, changed);
      const created = await createMigration('lock purpose', database.url, {
        migrationsDir: join(folder, 'migrations'),
        schemaFile,
        now: new Date(Date.UTC(2099, 0, 1)),
      });
      expect(created?.name).toBe('20990101000000_lock_purpose');
      expect(created?.sql).toContain('ALTER TABLE "cluster_locks" ADD COLUMN     "purpose" TEXT');

      const result = await applyMigrations(database.url, { migrationsDir: join(folder, 'migrations'), schemaFile });
      expect(result.applied).toEqual(['20990101000000_lock_purpose']);
      const { rows } = await client.query(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'cluster_locks' AND column_name = 'purpose'",
      );
      expect(rows).toHaveLength(1);
    });
  });
});
