// What every container (the root and each flowable with children) counts, and
// how a child's or a lane's end reads from its container.
import type { TaskRunState } from './states';
import type { ContainerProgress, Outcome } from './types';

export const EMPTY_PROGRESS: ContainerProgress = {
  stage: 'main',
  round: 0,
  nextLane: 0,
  running: 0,
  failed: 0,
  warned: 0,
  killed: 0,
};

/** What ended a lane (or a child, seen from its parent); 'live' while it runs. */
export type LaneEnd = 'live' | 'done' | 'failed' | 'killed';

export function childEnd(state: TaskRunState): LaneEnd {
  switch (state) {
    case 'SUCCESS':
    case 'WARNING':
    case 'SKIPPED':
      return 'done';
    case 'FAILED':
    case 'CANCELLED':
      return 'failed';
    case 'KILLED':
    case 'RETRIED':
      return 'killed';
    default:
      return 'live';
  }
}

/** How a branch (main, errors or finally) ended, from its counters. */
export function stageOutcome(progress: ContainerProgress): Outcome {
  if (progress.killed > 0) return 'KILLED';
  if (progress.failed > 0) return 'FAILED';
  return progress.warned > 0 ? 'WARNING' : 'SUCCESS';
}
