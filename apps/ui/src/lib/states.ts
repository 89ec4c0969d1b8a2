import type { operations } from '../api/schema';

export type ExecutionState = NonNullable<NonNullable<operations['ExecutionsController_search']['parameters']['query']>['state']>;

/** Every execution state (the record forces exactly the generated union's members), in lifecycle order. */
const ORDER: Record<ExecutionState, number> = {
  CREATED: 0,
  QUEUED: 1,
  RUNNING: 2,
  PAUSED: 3,
  RESTARTED: 4,
  KILLING: 5,
  RETRYING: 6,
  RETRIED: 7,
  SUCCESS: 8,
  WARNING: 9,
  FAILED: 10,
  KILLED: 11,
  CANCELLED: 12,
};

export const EXECUTION_STATES = (Object.keys(ORDER) as ExecutionState[]).sort((a, b) => ORDER[a] - ORDER[b]);

const ENDED = new Set(['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'RETRIED']);
export const isEnded = (state: string) => ENDED.has(state);
