/**
 * ARCHITECTURE.md "Liveness": every server process heartbeats every 3 s; the
 * coordinator marks an instance DISCONNECTED after 10 s of silence, NOT_RUNNING
 * 30 s later (then re-queues its running jobs), and purges ended instances
 * after a day.
 */
export interface LivenessTimings {
  readonly heartbeatIntervalMs: number;
  readonly missedHeartbeatTimeoutMs: number;
  /** Time in DISCONNECTED before NOT_RUNNING: workers of a dead controller reconnect elsewhere and re-adopt their jobs meanwhile. */
  readonly disconnectedGraceMs: number;
  /** NOT_RUNNING and TERMINATED rows older than this are deleted. */
  readonly purgeAfterMs: number;
}

export const DEFAULT_LIVENESS_TIMINGS: LivenessTimings = {
  heartbeatIntervalMs: 3_000,
  missedHeartbeatTimeoutMs: 10_000,
  disconnectedGraceMs: 30_000,
  purgeAfterMs: 24 * 60 * 60 * 1000,
};
