import {
  type ExecutionRecordState,
  type ExecutionStats,
  type ExecutionStatsBucket,
  type ExecutionStatsQuery,
  statsBucketStarts,
} from '@lanner/model';
import { Prisma } from '../generated/prisma/client';
import type { Db } from '../prisma';
import { escapeLike } from './flow.repository';

// The dashboard's aggregates, computed by PostgreSQL over the executions created
// in [from, to): counts per bucket and state, the success rate, duration
// percentiles, and the slowest and the failing flows. Nothing is summed in Node
// but the per-bucket rows into their buckets.

/** A terminal state: the execution will not change again on its own. */
const ENDED = Prisma.sql`('SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'RETRIED')`;

interface TotalsRow {
  total: number;
  ended: number;
  succeeded: number;
  failed: number;
  p50: number | null;
  p95: number | null;
}
interface BucketRow {
  bucket: Date;
  state: ExecutionRecordState;
  count: number;
}
interface SlowRow {
  namespace: string;
  flow_id: string;
  executions: number;
  p50: number;
  p95: number;
  max: number;
}
interface FailingRow {
  namespace: string;
  flow_id: string;
  failed: number;
  executions: number;
  last_failed_at: Date;
}

export async function queryExecutionStats(db: Db, tenantId: string, query: ExecutionStatsQuery): Promise<ExecutionStats> {
  const namespace = query.namespace ?? null;
  const childPattern = namespace === null ? null : `${escapeLike(namespace)}.%`;
  // The executions of the period, with their duration in milliseconds where they ran and ended.
  const period = Prisma.sql`
    SELECT namespace, flow_id, state, created_at,
      CASE WHEN ended_at IS NOT NULL AND started_at IS NOT NULL
        THEN EXTRACT(EPOCH FROM (ended_at - started_at)) * 1000 END AS duration_ms
    FROM executions
    WHERE tenant_id = ${tenantId} AND created_at >= ${query.from}::timestamptz AND created_at < ${query.to}::timestamptz
      AND (${namespace}::text IS NULL OR namespace = ${namespace} OR namespace LIKE ${childPattern})`;
  const bucket = `${Math.max(1, Math.floor(query.bucketSeconds))} seconds`;
  const top = Math.max(1, Math.floor(query.topFlows));
  // One snapshot, so the totals, the timeline and the lists describe the same executions.
  const [totals, buckets, slow, failing] = await db.$transaction(
    [
      db.$queryRaw<TotalsRow[]>`
        WITH period AS (${period})
        SELECT count(*)::int AS total,
          (count(*) FILTER (WHERE state::text IN ${ENDED}))::int AS ended,
          (count(*) FILTER (WHERE state = 'SUCCESS'))::int AS succeeded,
          (count(*) FILTER (WHERE state = 'FAILED'))::int AS failed,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
          percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
        FROM period`,
      db.$queryRaw<BucketRow[]>`
        WITH period AS (${period})
        SELECT date_bin(${bucket}::interval, created_at, ${query.from}::timestamptz) AS bucket, state, count(*)::int AS count
        FROM period GROUP BY 1, 2 ORDER BY 1, 2`,
      db.$queryRaw<SlowRow[]>`
        WITH period AS (${period})
        SELECT namespace, flow_id, count(*)::int AS executions,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
          percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95,
          max(duration_ms)::float8 AS max
        FROM period WHERE duration_ms IS NOT NULL
        GROUP BY namespace, flow_id ORDER BY p95 DESC, namespace, flow_id LIMIT ${top}`,
      db.$queryRaw<FailingRow[]>`
        WITH period AS (${period})
        SELECT namespace, flow_id, (count(*) FILTER (WHERE state = 'FAILED'))::int AS failed, count(*)::int AS executions,
          max(created_at) FILTER (WHERE state = 'FAILED') AS last_failed_at
        FROM period GROUP BY namespace, flow_id
        HAVING count(*) FILTER (WHERE state = 'FAILED') > 0
        ORDER BY failed DESC, last_failed_at DESC, namespace, flow_id LIMIT ${top}`,
    ],
    { isolationLevel: 'RepeatableRead' },
  );
  const { total, ended, succeeded, failed, p50, p95 } = totals[0];
  return {
    total,
    ended,
    succeeded,
    failed,
    successRate: ended === 0 ? null : succeeded / ended,
    durations: p50 === null || p95 === null ? null : { p50Ms: Math.round(p50), p95Ms: Math.round(p95) },
    timeline: timelineOf(query, buckets),
    slowestFlows: slow.map((row) => ({
      namespace: row.namespace,
      flowId: row.flow_id,
      executions: row.executions,
      p50Ms: Math.round(row.p50),
      p95Ms: Math.round(row.p95),
      maxMs: Math.round(row.max),
    })),
    failingFlows: failing.map((row) => ({
      namespace: row.namespace,
      flowId: row.flow_id,
      failed: row.failed,
      executions: row.executions,
      lastFailedAt: row.last_failed_at,
    })),
  };
}

/** Every bucket of the period, the empty ones too, with the counts PostgreSQL grouped into them. */
function timelineOf(query: ExecutionStatsQuery, rows: BucketRow[]): ExecutionStatsBucket[] {
  const counts = new Map<number, Partial<Record<ExecutionRecordState, number>>>();
  for (const row of rows) {
    const at = row.bucket.getTime();
    counts.set(at, { ...counts.get(at), [row.state]: row.count });
  }
  return statsBucketStarts(query.from, query.to, query.bucketSeconds).map((start) => ({
    start,
    counts: counts.get(start.getTime()) ?? {},
  }));
}
