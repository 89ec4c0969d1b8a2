import { createHash } from 'node:crypto';
import { toStorableText } from '@lanner/model';
import type { Pool } from 'pg';
import { InvalidRecord } from '../errors';
import type { LogLevel } from '../generated/prisma/client';
import type { Db } from '../prisma';

/** The levels in increasing severity; `minLevel` keeps a level and everything after it. */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLineLevel = (typeof LOG_LEVELS)[number];

/** One log line of a task-run attempt, as written by a worker. */
export interface NewLogLine {
  readonly taskRunId: string;
  readonly attempt: number;
  readonly level: LogLineLevel;
  readonly timestamp: Date;
  readonly message: string;
}

export interface LogLineRecord extends NewLogLine {
  /** Increases with every stored line: a follower asks for lines after the last id it saw. */
  readonly id: string;
  readonly executionId: string;
}

export interface LogQuery {
  readonly minLevel?: LogLineLevel;
  readonly taskRunId?: string;
  /** Only lines stored after the line with this id (for following). */
  readonly afterId?: string;
  /** At most this many lines; default 10 000. */
  readonly limit?: number;
}

const DEFAULT_LIMIT = 10_000;

/** The lines of one `log.batch` message: one execution's. */
export interface LogLineBatch {
  readonly tenantId: string;
  readonly executionId: string;
  readonly lines: readonly NewLogLine[];
}

/**
 * Log lines per execution, written by the indexer from `log.batch` messages.
 *
 * Idempotent on redelivery without a message id column: each line carries a key,
 * its identity (task run, attempt, level, timestamp, message) and how many times
 * that identity came before it in its batch, unique per execution. A redelivered
 * batch therefore adds nothing, while a line a task really printed twice in one
 * batch is kept twice. (Two different batches holding the same line at the same
 * millisecond keep one copy.)
 */
export class LogRepository {
  /** `pool` is the one under `db`: a batch is one statement on it, without Prisma's query pipeline. */
  constructor(
    private readonly db: Db,
    private readonly pool: Pool,
  ) {}

  /** Stores the lines of one `log.batch` that are not stored yet; returns how many were added (see appendBatches). */
  async appendBatch(tenantId: string, executionId: string, lines: readonly NewLogLine[]): Promise<number> {
    return this.appendBatches([{ tenantId, executionId, lines }]);
  }

  /**
   * Stores the lines of several `log.batch` messages (of any executions) that
   * are not stored yet; returns how many were added. One statement whatever the
   * number of batches and lines, and no lock: the unique line key makes a
   * concurrent or repeated write of the same lines a no-op (ON CONFLICT DO
   * NOTHING), also when one batch comes twice in the same call. A line's key
   * depends on its own batch only, so a redelivery adds nothing however the
   * batches are grouped. The namespace and flow come from the execution rows
   * in the same statement.
   */
  async appendBatches(batches: readonly LogLineBatch[]): Promise<number> {
    const rows = batches.flatMap((batch) => keyedLines(batch));
    if (rows.length === 0) return 0;
    // Logs may arrive before the execution row exists (no foreign key, on purpose); then the flow is unknown.
    const added = await this.pool.query(
      `INSERT INTO logs (tenant_id, namespace, flow_id, execution_id, task_run_id, attempt, level, timestamp, message, line_key)
      SELECT l.tenant_id, coalesce(e.namespace, ''), coalesce(e.flow_id, ''), l.execution_id, l.task_run_id, l.attempt,
        l.level::log_level, l.at, l.message, l.line_key
      FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::timestamptz[], $7::text[], $8::text[])
        WITH ORDINALITY AS l (tenant_id, execution_id, task_run_id, attempt, level, at, message, line_key, n)
      LEFT JOIN executions e ON e.id = l.execution_id AND e.tenant_id = l.tenant_id
      ORDER BY l.n
      ON CONFLICT (tenant_id, execution_id, line_key) DO NOTHING`,
      [
        rows.map((row) => row.tenantId),
        rows.map((row) => row.executionId),
        rows.map((row) => row.line.taskRunId),
        rows.map((row) => row.line.attempt),
        rows.map((row) => row.line.level),
        rows.map((row) => row.line.timestamp.toISOString()),
        rows.map((row) => row.line.message),
        rows.map((row) => row.key),
      ],
    );
    return added.rowCount ?? 0;
  }

  /** The execution's lines, oldest first (by timestamp, then by arrival). */
  async list(tenantId: string, executionId: string, query: LogQuery = {}): Promise<LogLineRecord[]> {
    const rows = await this.db.logLine.findMany({
      where: {
        tenantId,
        executionId,
        taskRunId: query.taskRunId,
        level: query.minLevel === undefined ? undefined : { in: levelsFrom(query.minLevel) as LogLevel[] },
        id: query.afterId === undefined ? undefined : { gt: parseLineId(query.afterId) },
      },
      orderBy: query.afterId === undefined ? [{ timestamp: 'asc' }, { id: 'asc' }] : [{ id: 'asc' }],
      take: Math.max(1, Math.min(query.limit ?? DEFAULT_LIMIT, DEFAULT_LIMIT)),
    });
    return rows.map((row) => ({
      id: row.id.toString(),
      executionId: row.executionId,
      taskRunId: row.taskRunId ?? '',
      attempt: row.attempt ?? 0,
      level: row.level,
      timestamp: row.timestamp,
      message: row.message,
    }));
  }
}

export function levelsFrom(minLevel: LogLineLevel): LogLineLevel[] {
  return LOG_LEVELS.slice(LOG_LEVELS.indexOf(minLevel));
}

function parseLineId(id: string): bigint {
  // A follower's cursor is a decimal string we handed out; anything else is a caller bug.
  if (!/^\d{1,19}$/.test(id)) throw new InvalidRecord(`'${id}' is not a log line id`);
  return BigInt(id);
}

/**
 * A batch's lines with their keys. A line keeps its text: only characters
 * PostgreSQL cannot store (NUL, unpaired surrogates) become U+FFFD, the same
 * way on every delivery, so a redelivered batch has the same keys.
 */
function keyedLines(batch: LogLineBatch): Array<{ tenantId: string; executionId: string; line: NewLogLine; key: string }> {
  const seen = new Map<string, number>();
  return batch.lines.map((given) => {
    const line = { ...given, message: toStorableText(given.message) };
    const identity = identityOf(line);
    const before = seen.get(identity) ?? 0;
    seen.set(identity, before + 1);
    const key = `${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}:${before}`;
    return { tenantId: batch.tenantId, executionId: batch.executionId, line, key };
  });
}

function identityOf(line: { taskRunId: string; attempt: number; level: string; timestamp: Date; message: string }): string {
  return JSON.stringify([line.taskRunId, line.attempt, line.level, line.timestamp.getTime(), line.message]);
}
