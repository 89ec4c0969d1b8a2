// Copies of the hot value types written field by field. Spreading objects whose
// optional properties come and go gives V8 many shapes and slow copies; these
// keep one shape per type, which is most of the per-event cost (see
// docs/BENCHMARKS.md, "State machine").
import type { ContainerProgress, TaskRun, TaskRunAttempt } from './types';

/** `patch` fields that are undefined keep the current value, except `error`, which a patch may clear. */
export function copyRun(run: TaskRun, patch: Partial<TaskRun>): TaskRun {
  return {
    id: run.id,
    executionId: run.executionId,
    taskId: run.taskId,
    parentTaskRunId: run.parentTaskRunId,
    seq: run.seq,
    stage: run.stage,
    lane: run.lane,
    position: run.position,
    value: run.value,
    forEachValues: run.forEachValues,
    iteration: run.iteration,
    state: patch.state ?? run.state,
    histories: patch.histories ?? run.histories,
    attempts: patch.attempts ?? run.attempts,
    outputs: patch.outputs ?? run.outputs,
    error: 'error' in patch ? patch.error : run.error,
    workerQueueId: patch.workerQueueId ?? run.workerQueueId,
    selector: patch.selector ?? run.selector,
    waitingReason: 'waitingReason' in patch ? patch.waitingReason : run.waitingReason,
    dispatchReason: 'dispatchReason' in patch ? patch.dispatchReason : run.dispatchReason,
    progress: patch.progress ?? run.progress,
    subflowExecutionId: patch.subflowExecutionId ?? run.subflowExecutionId,
  };
}

export function copyAttempt(attempt: TaskRunAttempt, patch: Partial<TaskRunAttempt>): TaskRunAttempt {
  return {
    attempt: attempt.attempt,
    state: patch.state ?? attempt.state,
    submittedAt: attempt.submittedAt,
    startedAt: patch.startedAt ?? attempt.startedAt,
    endedAt: patch.endedAt ?? attempt.endedAt,
    workerId: patch.workerId ?? attempt.workerId,
    workerQueueId: patch.workerQueueId ?? attempt.workerQueueId,
    outputs: patch.outputs ?? attempt.outputs,
    error: patch.error ?? attempt.error,
  };
}

/** Counter updates of a container (the fields that change on every child start/end). */
export function withCounters(
  progress: ContainerProgress,
  nextLane: number,
  running: number,
  failed: number,
  killed: number,
  dag: ContainerProgress['dag'],
): ContainerProgress {
  return {
    stage: progress.stage,
    round: progress.round,
    nextLane,
    running,
    failed,
    warned: progress.warned,
    killed,
    mainOutcome: progress.mainOutcome,
    mainLanes: progress.mainLanes,
    mainDag: progress.mainDag,
    branch: progress.branch,
    values: progress.values,
    dag,
    iteration: progress.iteration,
    startedAt: progress.startedAt,
    waiting: progress.waiting,
  };
}
