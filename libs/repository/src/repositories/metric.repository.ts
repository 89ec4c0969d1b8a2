import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import type { Prisma } from '../generated/prisma/client';
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

/** The points of one `metric.batch` message: one execution's. */
export interface MetricPointBatch {
  readonly tenantId: string;
  readonly executionId: string;
  readonly points: readonly NewMetricPoint[];
}

/**
 * Metric points per execution, written by the indexer from `metric.batch`
 * messages. Idempotent on redelivery the same way as LogRepository: each point
 * carries a key, its identity (task run, name, type, value, tags, timestamp)
 * and how many times that identity came before it in its batch, unique per
 * execution, so a redelivered batch adds nothing.
 */
export class MetricRepository {
  /** `pool` is the one under `db`: a write is one statement on it, without Prisma's query pipeline. */
  constructor(
    private readonly db: Db,
    private readonly pool: Pool,
  ) {}

  /** Stores the points of one `metric.batch` that are not stored yet; returns how many were added (see appendBatches). */
  async appendBatch(tenantId: string, executionId: string, points: readonly NewMetricPoint[]): Promise<number> {
    return this.appendBatches([{ tenantId, executionId, points }]);
  }

  /**
   * Stores the points of several `metric.batch` messages that are not stored
   * yet; returns how many were added. One statement, no lock: a repeated or
   * concurrent write of the same points conflicts on the point key (ON
   * CONFLICT DO NOTHING). The namespace and flow come from the execution rows
   * in the same statement (empty while the execution row does not exist).
   */
  async appendBatches(batches: readonly MetricPointBatch[]): Promise<number> {
    const rows = batches.flatMap((batch) => keyedPoints(batch));
    if (rows.length === 0) return 0;
    const added = await this.pool.query(
      `INSERT INTO metrics (tenant_id, namespace, flow_id, execution_id, task_run_id, name, type, value, tags, timestamp, point_key)
      SELECT m.tenant_id, coalesce(e.namespace, ''), coalesce(e.flow_id, ''), m.execution_id, m.task_run_id, m.name,
        m.type::metric_type, m.value, m.tags::jsonb, m.at, m.point_key
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::timestamptz[], $9::text[])
        WITH ORDINALITY AS m (tenant_id, execution_id, task_run_id, name, type, value, tags, at, point_key, n)
      LEFT JOIN executions e ON e.id = m.execution_id AND e.tenant_id = m.tenant_id
      ORDER BY m.n
      ON CONFLICT (tenant_id, execution_id, point_key) DO NOTHING`,
      [
        rows.map((row) => row.tenantId),
        rows.map((row) => row.executionId),
        rows.map((row) => row.point.taskRunId),
        rows.map((row) => row.point.name),
        rows.map((row) => row.point.type),
        rows.map((row) => row.point.value),
        rows.map((row) => JSON.stringify(row.point.tags)),
        rows.map((row) => row.point.timestamp.toISOString()),
        rows.map((row) => row.key),
      ],
    );
    return added.rowCount ?? 0;
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

function keyedPoints(
  batch: MetricPointBatch,
): Array<{ tenantId: string; executionId: string; point: NewMetricPoint; key: string }> {
  const seen = new Map<string, number>();
  return batch.points.map((point) => {
    const identity = identityOf(point);
    const before = seen.get(identity) ?? 0;
    seen.set(identity, before + 1);
    const key = `${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}:${before}`;
    return { tenantId: batch.tenantId, executionId: batch.executionId, point, key };
  });
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
