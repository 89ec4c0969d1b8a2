import type { ExecutorStateRecord } from '@lanner/repository';

/**
 * Maintenance mode (RELIABILITY.md): a new execution is not started; it stays
 * CREATED, and the liveness coordinator announces it again once maintenance
 * ends. Everything else (results, flowable steps, kills, timers) goes on, so
 * the work in flight drains. The stored state decides, read from the database
 * for each new execution (never from memory): an execution accepted once the
 * api answered the entry is held, whichever executor reads it and even right
 * after its restart, and one read as held before an exit is in the release
 * after it. Only an execution that never started waits: a queued one asked
 * again (its concurrency slot freed) goes on, and one that does not exist is
 * reported by the processor as always.
 */
export function waitsForMaintenance(maintenanceOn: boolean, stored: ExecutorStateRecord | undefined): boolean {
  return maintenanceOn && stored !== undefined && stored.stateData === null;
}
