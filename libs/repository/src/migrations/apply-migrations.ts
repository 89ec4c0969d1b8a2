import { readFileSync } from 'node:fs';
import { connectClient } from '../connection';
import { describeConnectionFailure, parseDatabaseUrl, redactDatabaseUrl } from '../database-url';
import { MigrationFailed } from '../errors';
import { listMigrations, toMigrationList } from './migration-folder';
import { MIGRATIONS_DIR, SCHEMA_FILE } from './paths';
import { withSchemaEngine } from './schema-engine';

export interface MigrationLocation {
  /** Defaults to libs/repository/prisma/migrations. */
  readonly migrationsDir?: string;
  /** Defaults to libs/repository/prisma/schema.prisma. */
  readonly schemaFile?: string;
}

export interface AppliedMigrations {
  /** Names of the migrations applied by this call, oldest first; empty when the database was up to date. */
  readonly applied: string[];
  /** How many migrations the folder holds. */
  readonly total: number;
}

/**
 * Serialises concurrent runners (two deploy jobs, parallel test workers) on
 * one database. Deliberately not the engine's own lock key, which the engine
 * takes itself on its own connection.
 */
const RUNNER_LOCK_KEY = 0x4c414e4e; // 'LANN'

const NO_FILTER = { externalTables: [], externalEnums: [] };

/**
 * Applies the migrations not yet applied to the database at `databaseUrl`,
 * through the wasm schema engine, which records them in `_prisma_migrations`
 * exactly as `prisma migrate deploy` does (same engine code). Re-running it is
 * a no-op. Errors name DATABASE_URL and never echo its password.
 */
export async function applyMigrations(
  databaseUrl: string | undefined,
  location: MigrationLocation = {},
): Promise<AppliedMigrations> {
  parseDatabaseUrl(databaseUrl);
  const url = databaseUrl as string;
  const migrationsDir = location.migrationsDir ?? MIGRATIONS_DIR;
  const migrations = listMigrations(migrationsDir);
  if (migrations.length === 0) throw new MigrationFailed(`no migrations found in ${migrationsDir}`);
  const schema = readFileSync(location.schemaFile ?? SCHEMA_FILE, 'utf8');

  const lockHolder = await connectClient(url);
  try {
    await lockHolder.query('SELECT pg_advisory_lock($1)', [RUNNER_LOCK_KEY]);
  } catch (error) {
    await lockHolder.end().catch(() => undefined);
    throw describeConnectionFailure(url, error);
  }
  try {
    const output = await withSchemaEngine(url, schema, ({ engine }) =>
      engine.applyMigrations({ migrationsList: toMigrationList(migrationsDir, migrations), filters: NO_FILTER }),
    );
    return { applied: output.appliedMigrationNames, total: migrations.length };
  } catch (error) {
    throw new MigrationFailed(`applying migrations to ${redactDatabaseUrl(url)} failed: ${engineErrorMessage(error)}`);
  } finally {
    await lockHolder.query('SELECT pg_advisory_unlock($1)', [RUNNER_LOCK_KEY]).catch(() => undefined);
    await lockHolder.end().catch(() => undefined);
  }
}

/** The engine rejects with an Error or with a plain `{ message }` object, depending on the failure. */
export function engineErrorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}
