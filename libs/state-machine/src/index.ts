export { next, isFinalExecution, acceptsRestart } from './lib/next';
export { timerId } from './lib/step-store';
export { retryDelay } from './lib/retry';
export {
  EXECUTION_TRANSITIONS,
  TASK_RUN_TRANSITIONS,
  TERMINAL_STATES,
  IllegalTransition,
  isAllowedExecutionTransition,
  isAllowedTaskRunTransition,
  isTerminal,
  transition,
} from './lib/states';
export type { ExecutionState, TaskRunState } from './lib/states';
export { createExecution, listTaskRuns, getTaskRun, executionToData, executionFromData } from './lib/execution';
export type { NewExecution, ExecutionData } from './lib/execution';
export { replayExecution, replayOrigin, replayProblem, ReplayRefused, replayTrigger } from './lib/replay';
export type { ReplayOrigin, ReplayRequest } from './lib/replay';
export { renderContextFor } from './lib/render-context';
export { taskById, UnknownTask } from './lib/flow-index';
export { resumeInputProblems } from './lib/resume-inputs';
export { startSubflowChild } from './lib/flowables/subflow';
export type { SubflowChildStart } from './lib/flowables/subflow';
export { PersistentMap } from './lib/persistent-map';
export type * from './lib/types';
export { simulateFlow } from './simulator/simulator';
export type { SimulationOptions, SimulationResult, TaskScript, ScriptedOutcome, SimulationLogEntry } from './simulator/simulator';
export {
  QUARANTINE_AFTER_CRASHES,
  markedProcessingsAfterStart,
  LIFTS_QUARANTINE,
  quarantineReason,
  reviewMarksAtStart,
  parksEvent,
  liftQuarantine,
  quarantineExecution,
  repeatedWorkerLoss,
  WORKER_LOSSES_BEFORE_FAILING,
} from './lib/quarantine';
export type { MarkedEvent, ProcessingMark, QuarantineOrder, MarksReview } from './lib/quarantine';
export {
  STORED_STATE_FORMAT_VERSION,
  readStoredState,
  toStoredState,
  toStoredTaskRun,
  withStoredTaskRuns,
} from './lib/stored-state';
export type { StoredExecutionState, StoredExecutionStateRead, StoredStateProblem, StoredStateReading } from './lib/stored-state';
