import type { MetricType, Prisma } from '../generated/prisma/client';
import type { Db } from '../prisma';

export type MetricKind = 'COUNTER' | 'TIMER';

/** One metric point of a task run, as a worker reported it. */
export interface NewMetricPoint {
  readonly taskRunId: string;
  readonly name: string;
  readonly type: MetricKind;
  /** A counter's increment, or a timer's span in milliseconds. */
  readonly value: number;
  readonly tags: Readonly<Record<string, string>>;
  readonly timestamp: Date;
}

export interface MetricPointRecord extends NewMetricPoint {
  readonly executionId: string | null;
}

/**
 * Metric points per execution, written by the indexer from `metric.batch`
 * messages. Idempotent on redelivery the same way as LogRepository: a batch
 * adds only the points not stored yet, counted per (task run, name, type,
 * value, tags, timestamp).
 */
export class MetricRepository {
  constructor(private readonly db: Db) {}

  /** Stores the points that are not stored yet; returns how many were added. */
  async appendBatch(tenantId: string, executionId: string, points: readonly NewMetricPoint[]): Promise<number> {
    if (points.length === 0) return 0;
    return this.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`metrics:${executionId}`}))`;
      const execution = await tx.execution.findFirst({
        where: { id: executionId, tenantId },
        select: { namespace: true, flowId: true },
      });
      const timestamps = points.map((point) => point.timestamp.getTime());
      const stored = await tx.metric.findMany({
        where: {
          tenantId,
          executionId,
          timestamp: { gte: new Date(Math.min(...timestamps)), lte: new Date(Math.max(...timestamps)) },
        },
      });
      const alreadyStored = new Map<string, number>();
      for (const row of stored) {
        const key = identityOf({ ...row, taskRunId: row.taskRunId ?? '', tags: tagsOf(row.tags) });
        alreadyStored.set(key, (alreadyStored.get(key) ?? 0) + 1);
      }
      const missing = points.filter((point) => {
        const key = identityOf(point);
        const left = alreadyStored.get(key) ?? 0;
        if (left === 0) return true;
        alreadyStored.set(key, left - 1);
        return false;
      });
      if (missing.length === 0) return 0;
      const data: Prisma.MetricCreateManyInput[] = missing.map((point) => ({
        tenantId,
        namespace: execution?.namespace ?? '',
        flowId: execution?.flowId ?? '',
        executionId,
        taskRunId: point.taskRunId,
        name: point.name,
        type: point.type as MetricType,
        value: point.value,
        tags: { ...point.tags },
        timestamp: point.timestamp,
      }));
      const { count } = await tx.metric.createMany({ data });
      return count;
    });
  }

  async listForExecution(tenantId: string, executionId: string): Promise<MetricPointRecord[]> {
    const rows = await this.db.metric.findMany({
      where: { tenantId, executionId },
      orderBy: [{ timestamp: 'asc' }, { id: 'asc' }],
    });
    return rows.map((row) => ({
      executionId: row.executionId,
      taskRunId: row.taskRunId ?? '',
      name: row.name,
      type: row.type,
      value: row.value,
      tags: tagsOf(row.tags),
      timestamp: row.timestamp,
    }));
  }
}

function tagsOf(value: Prisma.JsonValue | null): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, tag]) => [key, String(tag)]));
}

function identityOf(point: {
  taskRunId: string;
  name: string;
  type: string;
  value: number;
  tags: Readonly<Record<string, string>>;
  timestamp: Date;
}): string {
  const tags = Object.entries(point.tags).sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([point.taskRunId, point.name, point.type, point.value, tags, point.timestamp.getTime()]);
}
