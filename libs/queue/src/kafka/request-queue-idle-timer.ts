/**
 * kafkajs 2.2.4 keeps a timer running on every broker connection once its
 * first response has arrived, even when no request waits: with nothing
 * pending and no throttle, `scheduleCheckPendingRequests` computes a negative
 * delay (`-1 - Date.now()`), Node runs it after 1 ms, and the check schedules
 * itself again (tulios/kafkajs#1556, still open upstream). Every connection
 * then allocates and runs about a thousand timers a second for its whole life.
 * In a controller with 2,000 idle workers and 20 queue consumers that loop
 * was 59 % of all allocations (about 10 MB/s) and set the pace of its young
 * generation collections (docs/BENCHMARKS.md, the fleet bench's history).
 *
 * The replacement schedules a check only while a request waits: when the
 * broker throttles the client, at the end of the throttle; when the in-flight
 * limit is reached, every 10 ms as kafkajs does (a response also checks the
 * queue at once). Sending, throttling and in-flight limits are kafkajs's own.
 */

/** The parts of kafkajs's RequestQueue that scheduling reads and writes. */
export interface SchedulingRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's own interval for re-checking a request held back by the in-flight limit. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** Schedules one check of the pending requests, only if one waits and none is scheduled. */
export function scheduleCheckWhilePending(this: SchedulingRequestQueue): void {
  if (this.throttleCheckTimeoutId !== null || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

/** kafkajs's RequestQueue class (not part of its typed API). */
export function kafkajsRequestQueue(): { prototype: SchedulingRequestQueue } {
  // The class is internal to kafkajs: there is no typed import for it.
  return require('kafkajs/src/network/requestQueue') as { prototype: SchedulingRequestQueue };
}

/** Puts the replacement in place, once per process, before any kafkajs client connects. */
export function stopIdleRequestQueueTimers(): void {
  const { prototype } = kafkajsRequestQueue();
  if (prototype.scheduleCheckPendingRequests !== scheduleCheckWhilePending)
    prototype.scheduleCheckPendingRequests = scheduleCheckWhilePending;
}
