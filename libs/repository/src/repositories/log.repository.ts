import { toStorableText } from '@lanner/model';
import { InvalidRecord } from '../errors';
import type { LogLevel, Prisma } from '../generated/prisma/client';
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
 * Idempotent on redelivery without a message id column: a batch only adds the
 * lines that are not stored yet, counted per (task run, attempt, level,
 * timestamp, message). A redelivered batch therefore adds nothing, while a line
 * a task really printed twice in one batch is kept twice. (Two different
 * batches holding the same line at the same millisecond keep one copy.)
 */
export class LogRepository {
  constructor(private readonly db: Db) {}

  /** Stores the lines that are not stored yet; returns how many were added. */
  async appendBatch(tenantId: string, executionId: string, given: readonly NewLogLine[]): Promise<number> {
    if (given.length === 0) return 0;
    // A line keeps its text: only characters PostgreSQL cannot store (NUL, unpaired surrogates) become U+FFFD,
    // the same way on every delivery, so a redelivered batch still matches what was stored.
    const lines = given.map((line) => ({ ...line, message: toStorableText(line.message) }));
    return this.db.$transaction(async (tx) => {
      // Serialises writers of one execution (a rebalance may hand a partition over mid-batch).
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`logs:${executionId}`}))`;
      const execution = await tx.execution.findFirst({
        where: { id: executionId, tenantId },
        select: { namespace: true, flowId: true },
      });
      const timestamps = lines.map((line) => line.timestamp.getTime());
      const stored = await tx.logLine.findMany({
        where: {
          tenantId,
          executionId,
          taskRunId: { in: [...new Set(lines.map((line) => line.taskRunId))] },
          timestamp: { gte: new Date(Math.min(...timestamps)), lte: new Date(Math.max(...timestamps)) },
        },
        select: { taskRunId: true, attempt: true, level: true, timestamp: true, message: true },
      });
      const alreadyStored = countBy(
        stored.map((row) => identityOf({ ...row, taskRunId: row.taskRunId ?? '', attempt: row.attempt ?? 0 })),
      );
      const missing = lines.filter((line) => {
        const key = identityOf(line);
        const left = alreadyStored.get(key) ?? 0;
        if (left === 0) return true;
        alreadyStored.set(key, left - 1);
        return false;
      });
      if (missing.length === 0) return 0;
      // Logs may arrive before the execution row exists (no foreign key, on purpose); then the flow is unknown.
      const data: Prisma.LogLineCreateManyInput[] = missing.map((line) => ({
        tenantId,
        namespace: execution?.namespace ?? '',
        flowId: execution?.flowId ?? '',
        executionId,
        taskRunId: line.taskRunId,
        attempt: line.attempt,
        level: line.level as LogLevel,
        timestamp: line.timestamp,
        message: line.message,
      }));
      const { count } = await tx.logLine.createMany({ data });
      return count;
    });
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

function countBy(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}
