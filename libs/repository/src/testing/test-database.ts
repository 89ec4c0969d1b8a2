import { randomBytes } from 'node:crypto';
import { connectClient } from '../connection';
import { databaseNameOf, DATABASE_URL_VARIABLE, withDatabaseName } from '../database-url';
import { applyMigrations } from '../migrations/apply-migrations';
import { openRepositories, type Repositories } from '../repositories';

export interface TestDatabase {
  /** The URL of the fresh, migrated database. */
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/**
 * For integration specs: a database of its own on the server DATABASE_URL
 * points at, migrated once, dropped by `drop()`. Fails, never skips, when
 * DATABASE_URL is missing.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env[DATABASE_URL_VARIABLE];
  if (serverUrl === undefined || serverUrl === '') {
    throw new Error(
      `${DATABASE_URL_VARIABLE} is not set: integration specs need a real PostgreSQL (run \`npm run services:up\`, or export ${DATABASE_URL_VARIABLE})`,
    );
  }
  const name = `lanner_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = await connectClient(serverUrl);
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabaseName(serverUrl, name);
  await applyMigrations(url);
  return {
    url,
    name,
    async drop() {
      const client = await connectClient(serverUrl);
      try {
        // The name is generated above (letters, digits, underscores): safe to splice.
        await client.query(`DROP DATABASE IF EXISTS ${databaseNameOf(url)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestRepositories {
  readonly database: TestDatabase;
  readonly repositories: Repositories;
}

/**
 * Registers Jest hooks that give the enclosing `describe` its own migrated
 * database and open repositories, closed and dropped after its last test.
 * Read the fields inside tests (they are set in `beforeAll`).
 */
export function useTestRepositories(): TestRepositories {
  const fixture = {} as { database: TestDatabase; repositories: Repositories };
  beforeAll(async () => {
    fixture.database = await createTestDatabase();
    fixture.repositories = await openRepositories(fixture.database.url);
  });
  afterAll(async () => {
    await fixture.repositories?.close();
    await fixture.database?.drop();
  });
  return fixture;
}
