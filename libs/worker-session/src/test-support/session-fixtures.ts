// Fixtures the session specs share: the timings of a controller with default
// settings, a worker's identity, and numbered jobs. Not exported from the library.
import { jobMessageId, type JobRef } from '@lanner/frames';
import { DEFAULT_WORKER_GROUP_ID } from '@lanner/model';
import type { SessionIdentity, SessionTimings } from '../index';

export const TIMINGS: SessionTimings = {
  heartbeatIntervalMs: 3_000,
  anonymousAdoptionWaitMs: 3_000,
  anonymousAdoptionRecheckMs: 250,
  adoptionGraceMs: 10_000,
};

/** Worker `w-1` of the default group; with a registration token id, or anonymous (`null`). */
export function workerIdentity(registrationTokenId: string | null): SessionIdentity {
  return { workerId: 'w-1', workerGroupId: DEFAULT_WORKER_GROUP_ID, registrationTokenId };
}

/** The first attempt of task run `run-<index>`. */
export const refOf = (index: number): JobRef => ({ taskRunId: `run-${index}`, attempt: 1 });

/** The message id of `refOf(index)`: how a session keys the job. */
export const keyOf = (index: number): string => jobMessageId(refOf(index).taskRunId, 1);
