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

  /**
   * Stores the lines that are not stored yet; returns how many were added. One
   * statement whatever the batch size, and no lock: the unique line key makes a
   * concurrent or repeated write of the same lines a no-op (ON CONFLICT DO NOTHING).
   * The namespace and flow come from the execution row in the same statement.
   */
  async appendBatch(tenantId: string, executionId: string, given: readonly NewLogLine[]): Promise<number> {
    if (given.length === 0) return 0;
    // A line keeps its text: only characters PostgreSQL cannot store (NUL, unpaired surrogates) become U+FFFD,
    // the same way on every delivery, so a redelivered batch has the same keys.
    const lines = given.map((line) => ({ ...line, message: toStorableText(line.message) }));
    const seen = new Map<string, number>();
    const keys = lines.map((line) => {
      const identity = identityOf(line);
      const before = seen.get(identity) ?? 0;
      seen.set(identity, before + 1);
      return `${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}:${before}`;
    });
    // Logs may arrive before the execution row exists (no foreign key, on purpose); then the flow is unknown.
    const added = await this.pool.query(
      `INSERT INTO logs (tenant_id, namespace, flow_id, execution_id, task_run_id, attempt, level, timestamp, message, line_key)
      SELECT $1, coalesce(e.namespace, ''), coalesce(e.flow_id, ''), $2, l.task_run_id, l.attempt, l.level::log_level, l.at, l.message, l.line_key
      FROM unnest($3::text[], $4::int[], $5::text[], $6::timestamptz[], $7::text[], $8::text[]) WITH ORDINALITY
        AS l (task_run_id, attempt, level, at, message, line_key, n)
      LEFT JOIN executions e ON e.id = $2 AND e.tenant_id = $1
      ORDER BY l.n
      ON CONFLICT (tenant_id, execution_id, line_key) DO NOTHING`,
      [
        tenantId,
        executionId,
        lines.map((line) => line.taskRunId),
        lines.map((line) => line.attempt),
        lines.map((line) => line.level),
        lines.map((line) => line.timestamp.toISOString()),
        lines.map((line) => line.message),
        keys,
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

function identityOf(line: { taskRunId: string; attempt: number; level: string; timestamp: Date; message: string }): string {
  return JSON.stringify([line.taskRunId, line.attempt, line.level, line.timestamp.getTime(), line.message]);
}
