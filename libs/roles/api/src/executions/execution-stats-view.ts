import { EXECUTION_RECORD_STATES, type ExecutionStats } from '@lanner/model';
import { z } from 'zod';
import { count, instant } from '../openapi/zod-openapi';

// What `GET /executions/stats` (the dashboard) answers; the OpenAPI document, and so the UI's types, are generated from it.

const milliseconds = () => count().describe('milliseconds');

const FlowDurationsSchema = z.object({
  namespace: z.string(),
  flowId: z.string(),
  executions: count().describe('Ended executions of the flow in the period'),
  p50Ms: milliseconds(),
  p95Ms: milliseconds(),
  maxMs: milliseconds(),
});

const FlowFailuresSchema = z.object({
  namespace: z.string(),
  flowId: z.string(),
  failed: count(),
  executions: count(),
  lastFailedAt: instant(),
});

export const ExecutionStatsViewSchema = z.object({
  from: instant(),
  to: instant(),
  bucketSeconds: z.number().int().describe('Width of a timeline bucket'),
  total: count().describe('Executions created in the period'),
  ended: count().describe('Of those, the ones in a terminal state'),
  succeeded: count(),
  failed: count(),
  successRate: z.number().nullable().describe('succeeded / ended; null when none ended'),
  durations: z
    .object({ p50Ms: milliseconds(), p95Ms: milliseconds() })
    .nullable()
    .describe('Over the ended executions (end minus start); null when none ended'),
  timeline: z
    .array(
      z.object({
        start: instant(),
        counts: z
          .object(Object.fromEntries(EXECUTION_RECORD_STATES.map((state) => [state, count().optional()])))
          .describe('Executions created in the bucket, per state they are in now'),
      }),
    )
    .describe('Every bucket of the period, oldest first'),
  slowestFlows: z.array(FlowDurationsSchema).describe('Highest p95 first'),
  failingFlows: z.array(FlowFailuresSchema).describe('Most FAILED first'),
});

/** The dashboard's answer: the period, its bucket width and the figures, instants as ISO-8601. */
export function executionStatsView(
  period: { from: Date; to: Date; bucketSeconds: number },
  stats: ExecutionStats,
): z.output<typeof ExecutionStatsViewSchema> {
  return {
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    bucketSeconds: period.bucketSeconds,
    ...stats,
    timeline: stats.timeline.map((bucket) => ({ start: bucket.start.toISOString(), counts: bucket.counts })),
    failingFlows: stats.failingFlows.map((flow) => ({ ...flow, lastFailedAt: flow.lastFailedAt.toISOString() })),
  };
}
