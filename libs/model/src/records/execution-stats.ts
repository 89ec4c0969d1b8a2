import type { ExecutionRecordState } from './states';

// The dashboard's figures over a period: what the repository aggregates and the
// API answers. The period is half-open, [from, to), on the executions' creation time.

export interface ExecutionStatsQuery {
  readonly from: Date;
  readonly to: Date;
  /** Only the executions of this namespace (exactly); every namespace when absent. */
  readonly namespace?: string;
  /** The width of a timeline bucket, in seconds (statsBucketSeconds). */
  readonly bucketSeconds: number;
  /** How many flows the slowest and failing lists hold. */
  readonly topFlows: number;
}

/** Executions created in one bucket [start, start + bucket), counted per state they are in now. */
export interface ExecutionStatsBucket {
  readonly start: Date;
  readonly counts: Partial<Record<ExecutionRecordState, number>>;
}

export interface FlowDurationStats {
  readonly namespace: string;
  readonly flowId: string;
  /** Ended executions of the flow in the period (those with a duration). */
  readonly executions: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
}

export interface FlowFailureStats {
  readonly namespace: string;
  readonly flowId: string;
  readonly failed: number;
  readonly executions: number;
  readonly lastFailedAt: Date;
}

export interface ExecutionStats {
  readonly total: number;
  /** Executions in a terminal state (SUCCESS, WARNING, FAILED, KILLED, CANCELLED, RETRIED). */
  readonly ended: number;
  readonly succeeded: number;
  readonly failed: number;
  /** succeeded / ended; null when none has ended. */
  readonly successRate: number | null;
  /** Over the ended executions that started (end minus start); null when there are none. */
  readonly durations: { readonly p50Ms: number; readonly p95Ms: number } | null;
  /** Every bucket of the period, oldest first, empty ones included. */
  readonly timeline: ExecutionStatsBucket[];
  /** The flows with the highest p95 duration, slowest first. */
  readonly slowestFlows: FlowDurationStats[];
  /** The flows with the most FAILED executions, most first. */
  readonly failingFlows: FlowFailureStats[];
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The bucket widths a timeline uses, narrowest first. */
const BUCKET_SECONDS = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 6 * HOUR, DAY, 7 * DAY] as const;
/** A timeline holds at most this many buckets (a chart's worth). */
export const MAX_STATS_BUCKETS = 200;

/**
 * The narrowest bucket width (a minute, 5 or 15 minutes, an hour, 6 hours, a day,
 * a week) that covers the period [from, to) in at most MAX_STATS_BUCKETS buckets.
 * A period longer than 200 weeks is the caller's to refuse.
 */
export function statsBucketSeconds(from: Date, to: Date): number {
  const seconds = Math.max(1, (to.getTime() - from.getTime()) / 1000);
  return BUCKET_SECONDS.find((width) => seconds / width <= MAX_STATS_BUCKETS) ?? BUCKET_SECONDS[BUCKET_SECONDS.length - 1];
}

/** The start of every bucket of [from, to), `bucketSeconds` apart from `from`. */
export function statsBucketStarts(from: Date, to: Date, bucketSeconds: number): Date[] {
  const starts: Date[] = [];
  for (let at = from.getTime(); at < to.getTime(); at += bucketSeconds * 1000) starts.push(new Date(at));
  return starts;
}
