import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isEmptyMigration } from './create-migration';
import { LOCK_FILE, listMigrations, migrationChecksum, migrationFolderName, toMigrationList } from './migration-folder';
import { MIGRATIONS_DIR } from './paths';

describe('the migrations folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lanner-migrations-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('checksums a migration as prisma migrate records it: SHA-256 of the file, hex', () => {
    expect(migrationChecksum('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(migrationChecksum('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('lists migration folders oldest first, ignoring files and folders without migration.sql', () => {
    for (const name of ['20260102000000_second', '20260101000000_first']) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'migration.sql'), `-- ${name}\n`);
    }
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, LOCK_FILE), 'provider = "postgresql"\n');
    const migrations = listMigrations(dir);
    expect(migrations.map((m) => m.name)).toEqual(['20260101000000_first', '20260102000000_second']);
    expect(migrations[0].checksum).toBe(migrationChecksum('-- 20260101000000_first\n'));
    expect(migrations[0].schemaSnapshot).toBeNull();
  });

  it('lists nothing for a folder that does not exist', () => {
    expect(listMigrations(join(dir, 'absent'))).toEqual([]);
  });

  it('hands the engine the folder in its own shape', () => {
    mkdirSync(join(dir, '20260101000000_first'));
    writeFileSync(join(dir, '20260101000000_first', 'migration.sql'), 'SELECT 1;');
    const list = toMigrationList(dir, listMigrations(dir));
    expect(list.lockfile).toEqual({ path: LOCK_FILE, content: null });
    expect(list.migrationDirectories).toEqual([
      { path: '20260101000000_first', migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: 'SELECT 1;' } } },
    ]);
  });

  it('names a new folder by UTC timestamp and a cleaned-up name', () => {
    const now = new Date(Date.UTC(2026, 10, 30, 9, 5, 7));
    expect(migrationFolderName('Add worker labels!', now)).toBe('20261130090507_add_worker_labels');
    expect(() => migrationFolderName('  --  ', now)).toThrow('not a usable migration name');
  });

  it('treats a comment-only diff as no migration', () => {
    expect(isEmptyMigration('-- This is an empty migration.\n')).toBe(true);
    expect(isEmptyMigration('-- AlterTable\nALTER TABLE "a" ADD COLUMN "b" TEXT;\n')).toBe(false);
  });

  it('ships an init migration with its schema snapshot', () => {
    const [init] = listMigrations(MIGRATIONS_DIR);
    expect(init.name).toMatch(/^\d{14}_init$/);
    expect(init.sql).toContain('CREATE TABLE "running_jobs"');
    expect(init.schemaSnapshot).toContain('model RunningJob');
  });
});
