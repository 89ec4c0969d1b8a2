import { PrismaPg } from '@prisma/adapter-pg';
import type { RecordedStateChange, StoredJson } from '@lanner/model';
import { Pool } from 'pg';
import { Prisma, PrismaClient } from './generated/prisma/client';

// Everything Prisma-typed stays inside this library: repositories map rows to
// @lanner/model records before returning them.

export type Db = PrismaClient;
/** A Prisma client or an interactive transaction: what repository helpers run on. */
export type DbOrTx = Prisma.TransactionClient;

export function createPrismaClient(pool: Pool): Db {
  // 'minimal': no call-site capture per query (a stack trace taken, and source-mapped on an error, for a
  // message Lanner never shows: repository errors are mapped before they reach a user or a log).
  return new PrismaClient({ adapter: new PrismaPg(pool), errorFormat: 'minimal' });
}

/** For a nullable Json column: null is SQL NULL, undefined leaves the column as is. */
export function jsonColumn(value: StoredJson | undefined): Prisma.InputJsonValue | typeof Prisma.DbNull | undefined {
  if (value === undefined) return undefined;
  if (value === null) return Prisma.DbNull;
  return value as Prisma.InputJsonValue;
}

export function storedJson(value: Prisma.JsonValue | null): StoredJson {
  return value as StoredJson;
}

/** State histories are stored as `[{ state, date: ISO-8601 }]`. */
export function historiesColumn<S extends string>(histories: readonly RecordedStateChange<S>[]): Prisma.InputJsonValue {
  return histories.map((change) => ({ state: change.state, date: change.date.toISOString() }));
}

export function historiesOf<S extends string>(value: Prisma.JsonValue): RecordedStateChange<S>[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry) => {
    const { state, date } = entry as { state: S; date: string };
    return { state, date: new Date(date) };
  });
}

export function labelsOf(value: Prisma.JsonValue | null): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, label]) => [key, String(label)]));
}

/** Prisma's error code for a known request error (P2002 unique, P2003 foreign key, P2025 not found), else undefined. */
export function prismaErrorCode(error: unknown): string | undefined {
  return error instanceof Prisma.PrismaClientKnownRequestError ? error.code : undefined;
}

export const UNIQUE_VIOLATION = 'P2002';
/** PostgreSQL's SQLSTATE for a unique violation, as a statement on `pg` directly fails with it. */
export const PG_UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = 'P2003';
export const RECORD_NOT_FOUND = 'P2025';
