/**
 * Messages between the fleet bench (parent) and its load process (child, over
 * the Node IPC channel). The load process holds the simulated workers' gRPC
 * streams; the parent drives the phases and does the arithmetic.
 */

export interface LoadSettings {
  /** host:port of the controller's gRPC endpoint. */
  readonly target: string;
  /** Slots each simulated worker declares in Hello (and grants as its first Credit). */
  readonly slots: number;
  /** How long a simulated job "runs" between JobStarted and JobResult. */
  readonly runMs: number;
  /** Streams sharing one HTTP/2 connection (1: every worker its own connection, as real workers have). */
  readonly streamsPerConnection: number;
}

export type ToLoad =
  | { readonly type: 'open'; readonly total: number }
  | { readonly type: 'stats'; readonly withLatencies: boolean }
  | { readonly type: 'reset-latencies' }
  | { readonly type: 'reset-config-changed' }
  | { readonly type: 'close' };

export interface LoadStats {
  /** Streams opened so far. */
  readonly opened: number;
  /** Streams that received their Welcome. */
  readonly welcomed: number;
  /** Streams that ended (by either side), with the reasons seen. */
  readonly ended: number;
  readonly endReasons: Record<string, number>;
  /** Streams that failed before their Welcome and were opened again (a real worker's reconnect), by reason. */
  readonly connectRetries: number;
  readonly connectRetryReasons: Record<string, number>;
  /** StreamError frames received, by message. */
  readonly streamErrors: Record<string, number>;
  /** Job frames received, JobResult frames sent. */
  readonly jobsReceived: number;
  readonly resultsSent: number;
  /** Publish -> Job frame received, in ms, for every job since the last reset (when asked). */
  readonly latenciesMs?: number[];
  /** Jobs whose definition carried no publish time (not the bench's). */
  readonly foreignJobs: number;
  /** Per stream that got a ConfigChanged since the last reset: its first arrival (epoch ms). */
  readonly configChangedAt: number[];
  /** The subscriptions of the last ConfigChanged seen (for the report). */
  readonly lastConfigChanged?: unknown;
  readonly heartbeatIntervalMs: number | undefined;
  readonly rssKb: number;
  readonly cpuTicks: number;
  /** The load process's own event-loop delay since the last latency reset (p99, max), in ms. */
  readonly eventLoopDelayP99Ms: number;
  readonly eventLoopDelayMaxMs: number;
}

export type FromLoad =
  | { readonly type: 'ready' }
  | { readonly type: 'opened'; readonly total: number }
  | { readonly type: 'stats'; readonly stats: LoadStats }
  | { readonly type: 'closed' }
  | { readonly type: 'failed'; readonly message: string };

/** The job definition field the bench writes its publish time into (epoch ms, fractional). */
export const PUBLISHED_AT_FIELD = 'benchPublishedAtMs';
