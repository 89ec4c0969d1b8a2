import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiffTarget } from '@prisma/schema-engine-wasm';
import { connectClient } from '../connection';
import { parseDatabaseUrl } from '../database-url';
import { MigrationFailed } from '../errors';
import { engineErrorMessage, type MigrationLocation } from './apply-migrations';
import {
  LOCK_FILE,
  LOCK_FILE_CONTENT,
  MIGRATION_FILE,
  SCHEMA_SNAPSHOT_FILE,
  listMigrations,
  migrationFolderName,
} from './migration-folder';
import { MIGRATIONS_DIR, SCHEMA_FILE } from './paths';
import { withSchemaEngine } from './schema-engine';

export interface CreatedMigration {
  readonly name: string;
  readonly directory: string;
  readonly sql: string;
}

/**
 * Writes `migrations/<timestamp>_<name>/migration.sql`: the SQL that takes the
 * schema stored with the previous migration (or an empty database) to the
 * current schema.prisma. The current schema is stored beside it as the next
 * starting point. Returns null, writing nothing, when the schema is unchanged.
 *
 * The diff is schema-to-schema (no shadow database), but the engine reads the
 * server version from a live connection first, so `databaseUrl` must reach
 * some PostgreSQL; nothing is written to it.
 */
export async function createMigration(
  name: string,
  databaseUrl: string | undefined,
  options: MigrationLocation & { readonly now?: Date } = {},
): Promise<CreatedMigration | null> {
  parseDatabaseUrl(databaseUrl);
  const url = databaseUrl as string;
  const migrationsDir = options.migrationsDir ?? MIGRATIONS_DIR;
  const schema = readFileSync(options.schemaFile ?? SCHEMA_FILE, 'utf8');
  const folder = migrationFolderName(name, options.now ?? new Date());
  const previous = listMigrations(migrationsDir).at(-1);
  if (previous !== undefined && previous.schemaSnapshot === null) {
    throw new MigrationFailed(`migration ${previous.name} has no ${SCHEMA_SNAPSHOT_FILE} snapshot to diff against`);
  }
  if (previous !== undefined && folder <= previous.name) {
    throw new MigrationFailed(`migration ${folder} would not sort after the latest migration ${previous.name}`);
  }
  const from: DiffTarget =
    previous?.schemaSnapshot != null
      ? { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: previous.schemaSnapshot }] }
      : { tag: 'empty' };

  // Fail with a message naming DATABASE_URL before the engine fails with its own.
  await (await connectClient(url)).end();
  let sql: string;
  try {
    const result = await withSchemaEngine(url, schema, ({ engine }) =>
      engine.diff({
        from,
        to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: schema }] },
        script: true,
        exitCode: null,
        filters: { externalTables: [], externalEnums: [] },
      }),
    );
    sql = result.stdout ?? '';
  } catch (error) {
    throw new MigrationFailed(`diffing the schema failed: ${engineErrorMessage(error)}`);
  }
  if (isEmptyMigration(sql)) return null;

  const directory = join(migrationsDir, folder);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, MIGRATION_FILE), sql);
  writeFileSync(join(directory, SCHEMA_SNAPSHOT_FILE), schema);
  if (!existsSync(join(migrationsDir, LOCK_FILE))) writeFileSync(join(migrationsDir, LOCK_FILE), LOCK_FILE_CONTENT);
  return { name: folder, directory, sql };
}

/** The engine renders "no difference" as a comment-only script. */
export function isEmptyMigration(sql: string): boolean {
  return sql
    .split('\n')
    .map((line) => line.trim())
    .every((line) => line === '' || line.startsWith('--'));
}
