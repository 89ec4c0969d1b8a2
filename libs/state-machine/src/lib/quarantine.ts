// Crash-loop protection: the rules that decide, from what the executor recorded
// while it processed executions, which execution stopped its process too often
// and must end instead of being processed again; and that ending itself.
//
// The executor marks an execution durably before it processes an event of it
// that may be dangerous (the first processings after a start of an execution
// that was in flight then) and clears the mark after. A mark still set at the next
// start means the process stopped while it processed that execution: a crash,
// an out-of-memory kill, a liveness probe that timed it out.
import { copyAttempt, copyRun } from './shapes';
import { isTerminal, transition, type ExecutionState, type TaskRunState } from './states';
import type { Execution, ExecutionAction, Millis, NextResult, TaskRun, TaskRunAttempt } from './types';
import { PersistentMap } from './persistent-map';

/** Stops of the process while it processed one execution after which that execution is quarantined. */
export const QUARANTINE_AFTER_CRASHES = 2;

/**
 * How many processings of an execution in flight at a start are marked. On a
 * queue that keeps its messages (Kafka) the event that stopped the process is
 * redelivered first: one. Where the queue forgets them (standalone), that event
 * is not replayed as it was: the job it answered is resent (worker lost) and the
 * dangerous event comes back second or third: three.
 */
export function markedProcessingsAfterStart(queueKeepsMessages: boolean): number {
  return queueKeepsMessages ? 1 : 3;
}

/** The event whose processing a mark watches. */
export interface MarkedEvent {
  readonly messageId: string;
  readonly messageType: string;
  /** When its processing began. */
  readonly since: Millis;
}

/** What the executor keeps per execution it watched (one durable row each). */
export interface ProcessingMark {
  readonly tenantId: string;
  readonly executionId: string;
  /** Set while an event of the execution is processed; absent once it was processed. */
  readonly inProgress?: MarkedEvent;
  /** Times the process stopped while it processed this execution. */
  readonly crashes: number;
  /** The last of those: the event being processed and when its processing began. */
  readonly lastCrash?: MarkedEvent;
  /** Set once the execution is quarantined; its events are parked from then on. */
  readonly quarantinedAt?: Millis;
}

export interface QuarantineOrder {
  readonly tenantId: string;
  readonly executionId: string;
  /** What users read on the execution and its failed task runs. */
  readonly reason: string;
}

export interface MarksReview {
  /** The marks that changed (crashes counted, quarantines decided), to store. */
  readonly changed: readonly ProcessingMark[];
  /**
   * The executions to end FAILED: newly quarantined ones, and those quarantined
   * before whose end may not be stored yet (ending an ended execution changes nothing).
   */
  readonly quarantine: readonly QuarantineOrder[];
}

/** The reason a quarantined execution carries, from its mark. */
export function quarantineReason(mark: Pick<ProcessingMark, 'crashes' | 'lastCrash'>): string {
  const times = mark.crashes === 1 ? 'once' : mark.crashes === 2 ? 'twice' : `${mark.crashes} times`;
  const last =
    mark.lastCrash === undefined
      ? ''
      : ` (last at ${new Date(mark.lastCrash.since).toISOString()}, handling '${mark.lastCrash.messageType}')`;
  return `quarantined: the executor stopped ${times} while processing this execution after a restart${last}; its pending events are parked and not processed again`;
}

/**
 * At the executor's start: every mark still in progress is a crash of its
 * execution; an execution that reached `threshold` crashes is quarantined.
 * `now` is when the review runs.
 */
export function reviewMarksAtStart(
  marks: readonly ProcessingMark[],
  now: Millis,
  threshold: number = QUARANTINE_AFTER_CRASHES,
): MarksReview {
  const changed: ProcessingMark[] = [];
  const quarantine: QuarantineOrder[] = [];
  for (const mark of marks) {
    let reviewed = mark;
    if (mark.inProgress !== undefined) {
      reviewed = {
        tenantId: mark.tenantId,
        executionId: mark.executionId,
        crashes: mark.crashes + 1,
        lastCrash: mark.inProgress,
      };
      if (mark.quarantinedAt !== undefined) reviewed = { ...reviewed, quarantinedAt: mark.quarantinedAt };
    }
    // Only a crash counted now quarantines: a quarantine a restart lifted stays lifted until the next crash.
    if (reviewed.quarantinedAt === undefined && mark.inProgress !== undefined && reviewed.crashes >= threshold)
      reviewed = { ...reviewed, quarantinedAt: now };
    if (reviewed !== mark) changed.push(reviewed);
    if (reviewed.quarantinedAt !== undefined) {
      quarantine.push({ tenantId: reviewed.tenantId, executionId: reviewed.executionId, reason: quarantineReason(reviewed) });
    }
  }
  return { changed, quarantine };
}

/** The executor event that lifts a quarantine: a user's explicit restart of the ended execution. */
export const LIFTS_QUARANTINE = 'execution.restart';

/**
 * Whether an event of an execution is parked (recorded, never processed) rather
 * than processed: every event of a quarantined execution but a restart, which a
 * user asks for knowingly (the execution is watched again then, its crashes kept,
 * so one more crash quarantines it again).
 */
export function parksEvent(mark: Pick<ProcessingMark, 'quarantinedAt'> | undefined, messageType: string): boolean {
  return mark?.quarantinedAt !== undefined && messageType !== LIFTS_QUARANTINE;
}

/** The mark once a restart lifted its quarantine. */
export function liftQuarantine(mark: ProcessingMark): ProcessingMark {
  const lifted: ProcessingMark = { tenantId: mark.tenantId, executionId: mark.executionId, crashes: mark.crashes };
  return mark.lastCrash !== undefined ? { ...lifted, lastCrash: mark.lastCrash } : lifted;
}

// ---- Ending a quarantined execution ---------------------------------------------------

/** Through the states the tables allow, to FAILED (a kill in progress ends KILLED, as it would have). */
const EXECUTION_PATH: Partial<Record<ExecutionState, readonly ExecutionState[]>> = {
  CREATED: ['FAILED'],
  QUEUED: ['RUNNING', 'FAILED'],
  RUNNING: ['FAILED'],
  PAUSED: ['FAILED'],
  RESTARTED: ['FAILED'],
  RETRYING: ['RUNNING', 'FAILED'],
  KILLING: ['KILLED'],
};

const TASK_RUN_PATH: Partial<Record<TaskRunState, readonly TaskRunState[]>> = {
  CREATED: ['FAILED'],
  SUBMITTED: ['FAILED'],
  RUNNING: ['FAILED'],
  RESUBMITTED: ['FAILED'],
  PAUSED: ['FAILED'],
  RETRYING: ['SUBMITTED', 'FAILED'],
  RESTARTED: ['RUNNING', 'FAILED'],
  KILLING: ['KILLED'],
};

/**
 * Ends a quarantined execution: every live task run FAILED with `reason` (its
 * running job killed, its subflow killed), the execution FAILED with `reason`,
 * and nothing of its flow evaluated (no errors/finally branch, no output): the
 * flow is what may stop the process. An ended execution is left as it is.
 */
export function quarantineExecution(execution: Execution, reason: string, now: Millis): NextResult {
  if (isTerminal(execution.state)) return { execution, actions: [] };
  const actions: ExecutionAction[] = [];
  let taskRuns = execution.taskRuns;
  execution.liveTaskRuns.forEach((_, id) => {
    const run = taskRuns.get(id);
    if (run === undefined || isTerminal(run.state)) return;
    const ended = failTaskRun(run, reason, now, actions);
    taskRuns = taskRuns.set(id, ended);
  });
  let state = execution.state;
  const histories = [...execution.histories];
  for (const to of EXECUTION_PATH[state] ?? ['FAILED']) {
    state = transition('execution', state, to, execution.id);
    histories.push({ state, at: now });
  }
  actions.push({ type: 'end', state });
  return {
    execution: {
      ...execution,
      state,
      histories,
      error: reason,
      version: execution.version + 1,
      taskRuns,
      liveTaskRuns: PersistentMap.empty<true>(),
      halt: undefined,
    },
    actions,
  };
}

function failTaskRun(run: TaskRun, reason: string, now: Millis, actions: ExecutionAction[]): TaskRun {
  let state = run.state;
  const histories = [...run.histories];
  for (const to of TASK_RUN_PATH[state] ?? ['FAILED']) {
    state = transition('task run', state, to, run.id);
    histories.push({ state, at: now });
  }
  let attempts = run.attempts;
  const last = attempts[attempts.length - 1];
  if (last !== undefined && (last.state === 'SUBMITTED' || last.state === 'RUNNING')) {
    // The job may be on a queue or a worker: stopped, so a worker never runs it for an ended execution.
    if (run.progress === undefined) actions.push({ type: 'kill-job', taskRunId: run.id, attempt: last.attempt });
    attempts = [
      ...attempts.slice(0, -1),
      copyAttempt(last, { state: state === 'KILLED' ? 'KILLED' : 'FAILED', endedAt: now, error: reason }),
    ];
  }
  if (run.subflowExecutionId !== undefined) actions.push({ type: 'kill-subflow', executionId: run.subflowExecutionId });
  return copyRun(run, { state, histories, attempts, error: reason });
}

// ---- Jobs that stop their worker ----------------------------------------------------

/** Attempts of one task run lost with their worker while running, after which it fails instead of being resent. */
export const WORKER_LOSSES_BEFORE_FAILING = 2;

/**
 * The error of a task run whose job was lost with its worker while running
 * `WORKER_LOSSES_BEFORE_FAILING` times (counting the loss being handled, of its
 * last attempt), or undefined while it may be resent. Only attempts a worker
 * reported started count: a job lost before that may never have reached one.
 */
export function repeatedWorkerLoss(attempts: readonly TaskRunAttempt[]): string | undefined {
  const lost = attempts.filter(
    (attempt, index) => attempt.startedAt !== undefined && (attempt.state === 'RESUBMITTED' || index === attempts.length - 1),
  );
  if (lost.length < WORKER_LOSSES_BEFORE_FAILING) return undefined;
  const numbers = lost.map((attempt) => attempt.attempt);
  const listed = `${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
  return `the worker running this task was lost ${lost.length === 2 ? 'twice' : `${lost.length} times`} (attempts ${listed}): a job that stops its worker is not resent again`;
}
