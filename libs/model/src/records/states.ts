// The states as the repository stores them (FLOWS.md). The state machine owns
// which transitions are allowed; these lists only name the values.

export const EXECUTION_RECORD_STATES = [
  'CREATED',
  'QUEUED',
  'RUNNING',
  'PAUSED',
  'RESTARTED',
  'KILLING',
  'RETRYING',
  'RETRIED',
  'SUCCESS',
  'WARNING',
  'FAILED',
  'KILLED',
  'CANCELLED',
] as const;
export type ExecutionRecordState = (typeof EXECUTION_RECORD_STATES)[number];

/** Task runs take every execution state plus SUBMITTED, RESUBMITTED and SKIPPED. */
export const TASK_RUN_RECORD_STATES = [...EXECUTION_RECORD_STATES, 'SUBMITTED', 'RESUBMITTED', 'SKIPPED'] as const;
export type TaskRunRecordState = (typeof TASK_RUN_RECORD_STATES)[number];

/** One stored state change; `histories` lists them oldest first. */
export interface RecordedStateChange<S extends string> {
  readonly state: S;
  readonly date: Date;
}

/** A JSON document as stored (inputs, outputs, parsed flow, job payloads). */
export type StoredJson = string | number | boolean | null | StoredJson[] | { [key: string]: StoredJson };

/** One page of a search, with the total number of matches. */
export interface RecordPage<T> {
  readonly results: T[];
  readonly total: number;
}
