import { applyMigrations } from '@lanner/repository';
import { Client } from 'pg';
import { requiredEnv } from './spec-helpers';

export interface SpecDatabase {
  readonly name: string;
  /** The URL of the fresh, migrated database. */
  readonly url: string;
  drop(): Promise<void>;
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * A migrated database of the spec's own, named `name` (letters, digits and
 * underscores of the spec's making), on the server DATABASE_URL points at;
 * `drop()` removes it even while a controller still holds connections.
 */
export async function createSpecDatabase(name: string): Promise<SpecDatabase> {
  const serverUrl = requiredEnv('DATABASE_URL');
  const drop = () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    await applyMigrations(url.toString());
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, url: url.toString(), drop };
}
