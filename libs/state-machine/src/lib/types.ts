// The values the state machine reads and returns: executions, task runs, the
// events the executor feeds in and the actions it must carry out.
import type { RandomSource } from '@lanner/expressions';
import type { RunnableTask, TemplatedValue, WorkerSelectorSpec } from '@lanner/model';
import type { PersistentMap } from './persistent-map';
import type { ExecutionState, TaskRunState } from './states';

/** Epoch milliseconds. The state machine never reads a clock: every `now` is an argument. */
export type Millis = number;

export interface StateChange<S extends string> {
  readonly state: S;
  readonly at: Millis;
}

/** JSON-like data (inputs, outputs, variables). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type AttemptState = 'SUBMITTED' | 'RUNNING' | 'SUCCESS' | 'WARNING' | 'FAILED' | 'KILLED' | 'RESUBMITTED' | 'CANCELLED';

/** One try of a runnable task run on a worker (1-based `attempt`). */
export interface TaskRunAttempt {
  readonly attempt: number;
  readonly state: AttemptState;
  readonly submittedAt: Millis;
  readonly startedAt?: Millis;
  readonly endedAt?: Millis;
  readonly workerId?: string;
  readonly workerQueueId?: string;
  readonly outputs?: JsonObject;
  readonly error?: string;
}

export type Stage = 'main' | 'errors' | 'finally';
export type Outcome = 'SUCCESS' | 'WARNING' | 'FAILED' | 'KILLED';

/**
 * A Dag task's state in `ContainerProgress.dag`. Stored as these numbers in the
 * persisted execution; `DAG_TASK` (flowables/dag.ts) names them.
 */
export type DagTaskState = 0 | 1 | 2 | 3;

/**
 * Where a flowable (or the execution's root) is: which branch runs, how many
 * lanes are started/running, how the finished ones ended. Counters instead of
 * child lists, so a child's end is O(1) whatever the number of children.
 * A lane is a sequence of tasks run one after the other: a Sequential has one,
 * a Parallel one per task, a ForEach one per value.
 *
 * One record for every kind, as the executor persists it (`executionToData`):
 * the counters are common, the fields after them belong to one kind each and
 * only its rules (flowables/<kind>.ts) read or write them.
 */
export interface ContainerProgress {
  readonly stage: Stage;
  /** Incremented by each restart; new errors/finally task runs get fresh ids. */
  readonly round: number;
  readonly nextLane: number;
  readonly running: number;
  readonly failed: number;
  readonly warned: number;
  readonly killed: number;
  /** The main branch's outcome once it ended (errors/finally keep it). */
  readonly mainOutcome?: Outcome;
  /** Lanes started / lane states of the main branch, kept while errors/finally run (restart needs them). */
  readonly mainLanes?: number;
  readonly mainDag?: readonly DagTaskState[];
  /** If: 'then' | 'else'; Switch: `case:<key>` of the matched case, or '' for defaults. */
  readonly branch?: string;
  /** ForEach: the rendered values, one lane each (strings, as Kestra's taskrun.value). */
  readonly values?: readonly string[];
  /** Dag: the state of each task's lane (main branch only; `mainDag` keeps it meanwhile). */
  readonly dag?: readonly DagTaskState[];
  /** WaitFor: the current iteration (0-based) and when the loop began. */
  readonly iteration?: number;
  readonly startedAt?: Millis;
  /** WaitFor: waiting for its next-iteration timer. */
  readonly waiting?: boolean;
}

export interface TaskRun {
  readonly id: string;
  readonly executionId: string;
  readonly taskId: string;
  /** Absent for tasks of the flow's own `tasks`/`errors`/`finally`. */
  readonly parentTaskRunId?: string;
  /** Creation order within the execution (stable listing). */
  readonly seq: number;
  readonly stage: Stage;
  readonly lane: number;
  /** Index of the task in its lane's task list. */
  readonly position: number;
  /** ForEach: the value of this task run's own lane. */
  readonly value?: string;
  /** Values of all enclosing ForEach lanes, outermost first (for `outputs.x[v]` and `parents`). */
  readonly forEachValues?: readonly string[];
  /** WaitFor iteration of the enclosing loop. */
  readonly iteration?: number;
  readonly state: TaskRunState;
  readonly histories: readonly StateChange<TaskRunState>[];
  readonly attempts: readonly TaskRunAttempt[];
  readonly outputs?: JsonObject;
  readonly error?: string;
  readonly workerQueueId?: string;
  readonly selector?: WorkerSelectorSpec;
  /**
   * Why the job waits on its queue, as the resolver said (WAIT_AND_DISPATCH): "no
   * group subscribes to queue X", "no worker of the subscribed groups is connected".
   */
  readonly waitingReason?: string;
  /**
   * Why the resolver sent the last job where it went when that was not a plain
   * match (fallback IGNORE), or why it refused it (no queue matches, fallback FAIL
   * or CANCEL). Kept after the job starts; a new attempt replaces it.
   */
  readonly dispatchReason?: string;
  /** Flowables only. */
  readonly progress?: ContainerProgress;
  /** Subflow: the child execution's id. */
  readonly subflowExecutionId?: string;
}

/**
 * What a Subflow's child reads as `trigger`, as Kestra gives it: the parent execution's
 * `executionId`, its flow's `namespace`, `flowId` and `flowRevision`, the Subflow task run's
 * `taskRunId` and `taskId`, and `taskRunValue` / `taskRunIteration` when that task run has them
 * (a ForEach value, a WaitFor iteration).
 */
export type SubflowTriggerVariables = {
  readonly executionId: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly flowRevision: number;
  readonly taskRunId: string;
  readonly taskId: string;
  readonly taskRunValue?: string;
  readonly taskRunIteration?: number;
};

export interface ParentExecutionRef {
  readonly executionId: string;
  readonly taskRunId: string;
  readonly namespace: string;
  readonly flowId: string;
}

export interface Execution {
  readonly id: string;
  readonly tenant: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly flowRevision: number;
  readonly state: ExecutionState;
  readonly histories: readonly StateChange<ExecutionState>[];
  readonly inputs: JsonObject;
  readonly outputs?: JsonObject;
  readonly labels: Readonly<Record<string, string>>;
  readonly variables: Readonly<Record<string, TemplatedValue>>;
  readonly parent?: ParentExecutionRef;
  /** `trigger.*` in templates: what the trigger that started the execution passed (a schedule's dates, a webhook's body). */
  readonly trigger?: JsonObject;
  /** CREATE_NEW_EXECUTION: 1 for the first execution, +1 per retry execution. */
  readonly retryAttempt: number;
  readonly originalExecutionId?: string;
  /**
   * A replay: the execution it was made from, and the task run (an id of this
   * execution) it runs again from; the task runs before it were carried over.
   */
  readonly replayOf?: { readonly executionId: string; readonly taskRunId?: string };
  readonly error?: string;
  /** +1 per applied change; the same event applied twice leaves it unchanged. */
  readonly version: number;
  /** All task runs by id. Structurally shared between versions (see persistent-map.ts). */
  readonly taskRuns: PersistentMap<TaskRun>;
  /** Ids of task runs not in a terminal state (kill and resume walk these, not all). */
  readonly liveTaskRuns: PersistentMap<true>;
  /** Outputs per task id and enclosing ForEach values, for `outputs.<taskId>` in templates. */
  readonly taskOutputs: PersistentMap<TaskOutputEntry>;
  readonly root: ContainerProgress;
  readonly nextSeq: number;
  /** Set when a kill or a CREATE_NEW_EXECUTION retry is stopping the execution. */
  /** `sla`: a violated SLA stops the execution, which then ends `slaOutcome`. */
  readonly halt?: {
    readonly reason: 'kill' | 'retry' | 'sla';
    readonly retryAt?: Millis;
    readonly slaOutcome?: 'FAILED' | 'CANCELLED';
  };
}

export interface TaskOutputEntry {
  readonly taskId: string;
  readonly forEachValues: readonly string[];
  readonly outputs: JsonObject;
}

// ---- Events ---------------------------------------------------------------------

/** `sla-max-duration`: an execution-level timer (its taskRunId is the execution id, its attempt the SLA's index). */
export type TimerKind = 'retry' | 'pause-resume' | 'pause-timeout' | 'task-timeout' | 'waitfor-next' | 'sla-max-duration';

export interface Timer {
  readonly id: string;
  readonly kind: TimerKind;
  readonly at: Millis;
  readonly taskRunId: string;
  /** The attempt (task-timeout, retry) or iteration (waitfor-next) the timer belongs to. */
  readonly attempt: number;
}

export type ExecutionEvent =
  /** The execution was created. `runningExecutions`: other running executions of the flow (concurrency limit). */
  | { readonly type: 'created'; readonly runningExecutions?: number }
  /** A concurrency slot freed: a QUEUED execution may start. */
  | { readonly type: 'concurrency-slot-freed' }
  | {
      readonly type: 'task-run-started';
      readonly taskRunId: string;
      readonly attempt: number;
      readonly workerId: string;
      readonly workerQueueId: string;
    }
  | {
      readonly type: 'task-run-result';
      readonly taskRunId: string;
      readonly attempt: number;
      readonly state: 'SUCCESS' | 'WARNING' | 'FAILED' | 'KILLED';
      readonly outputs?: JsonObject;
      readonly error?: string;
      /** Who ran it: recorded on the attempt when no started event came first (a task that ended at once). */
      readonly workerId?: string;
      readonly workerQueueId?: string;
    }
  /**
   * The executor produced the job on `workerQueueId` (after resolving the selector);
   * `waitingReason` when no worker can take it now (WAIT_AND_DISPATCH).
   */
  | {
      readonly type: 'task-run-queued';
      readonly taskRunId: string;
      readonly attempt: number;
      readonly workerQueueId: string;
      readonly waitingReason?: string;
      /** Why the job went to `workerQueueId` when it was not a plain match (fallback IGNORE). */
      readonly reason?: string;
    }
  /** The resolver refused the job (selector fallback FAIL or CANCEL), with the reason users see. */
  | {
      readonly type: 'task-run-dispatch-refused';
      readonly taskRunId: string;
      readonly attempt: number;
      readonly state: 'FAILED' | 'CANCELLED';
      readonly reason: string;
      /**
       * The job could not be produced because of the flow (a template that did
       * not render, a job too large): a failed attempt, to which the task's
       * retry and allowFailure apply, as when a worker fails it.
       */
      readonly attemptFailed?: boolean;
    }
  | {
      readonly type: 'worker-lost';
      readonly taskRunId: string;
      readonly attempt: number;
      /** The lost worker's group said NEVER: the task run fails (no retry) instead of being re-run. */
      readonly neverRestart?: boolean;
    }
  /**
   * A controller or worker did not start the job: its deadline (the task's
   * timeout) passed first. Ends the attempt as the task-timeout timer does;
   * whichever of the two comes second changes nothing.
   */
  | { readonly type: 'task-run-deadline-passed'; readonly taskRunId: string; readonly attempt: number }
  | { readonly type: 'timer-fired'; readonly timer: Timer }
  | { readonly type: 'kill-requested' }
  /** Resume paused task runs (all, or the one named), with the resume inputs as their outputs. */
  | { readonly type: 'resume-requested'; readonly taskRunId?: string; readonly inputs?: JsonObject }
  /**
   * Restart a FAILED/KILLED/WARNING execution. `expectedVersion` (the version the
   * requester saw) makes a redelivered restart a no-op even after the execution
   * ended again; without it, a late duplicate would restart it a second time.
   * `runningExecutions`: other executions of the flow holding a concurrency slot;
   * at the flow's limit the restart waits QUEUED, or is CANCELLED / FAILED, as a
   * new execution would be.
   */
  | { readonly type: 'restart-requested'; readonly expectedVersion?: number; readonly runningExecutions?: number }
  | {
      readonly type: 'subflow-ended';
      readonly taskRunId: string;
      readonly executionId: string;
      readonly state: ExecutionState;
      readonly outputs?: JsonObject;
      /** Why the child could not even start (its inputs do not match its flow, say). */
      readonly error?: string;
      /**
       * The ended child's render context, given when the Subflow has Kestra's
       * deprecated `outputs` map and the child's flow declares no outputs of
       * its own: the map is rendered against it.
       */
      readonly childContext?: Readonly<Record<string, unknown>>;
    };

// ---- Actions --------------------------------------------------------------------

export type ExecutionAction =
  /**
   * Put a job on a worker queue. The executor renders the task late with
   * `renderContextFor(flow, execution, taskRunId)` and resolves `selector` with
   * the worker-queue resolver, unless `workerQueueId` is set (a re-dispatch
   * keeps the queue it had).
   */
  | {
      readonly type: 'dispatch';
      readonly taskRunId: string;
      readonly attempt: number;
      readonly task: RunnableTask;
      readonly selector?: WorkerSelectorSpec;
      readonly workerQueueId?: string;
    }
  | { readonly type: 'kill-job'; readonly taskRunId: string; readonly attempt: number }
  | { readonly type: 'schedule-timer'; readonly timer: Timer }
  | { readonly type: 'cancel-timer'; readonly timerId: string }
  | {
      readonly type: 'start-subflow';
      readonly taskRunId: string;
      readonly executionId: string;
      readonly namespace: string;
      readonly flowId: string;
      readonly revision?: number;
      readonly inputs: JsonObject;
      readonly labels: Readonly<Record<string, string>>;
      readonly parent: ParentExecutionRef;
      /** What the child reads as `trigger`. */
      readonly trigger: SubflowTriggerVariables;
      readonly wait: boolean;
    }
  | { readonly type: 'kill-subflow'; readonly executionId: string }
  | { readonly type: 'set-labels'; readonly labels: Readonly<Record<string, string>> }
  /** CREATE_NEW_EXECUTION: create `executionId` (same flow and inputs) at `at`. */
  | {
      readonly type: 'create-retry-execution';
      readonly executionId: string;
      readonly at: Millis;
      readonly retryAttempt: number;
      readonly originalExecutionId: string;
    }
  | { readonly type: 'end'; readonly state: ExecutionState };

export interface NextResult {
  readonly execution: Execution;
  readonly actions: readonly ExecutionAction[];
}

/**
 * What the role that runs the state machine gives every rendering besides the
 * execution: Kestra's `envs` (the instance's prefixed environment variables,
 * prefix stripped, lower-cased) and `globals` (instance-wide variables), and
 * the source uuid(), id() and randomInt() draw from. All optional: without
 * them `envs` and `globals` are empty and the random functions fail.
 */
export interface RenderEnvironment {
  readonly envs?: Readonly<Record<string, string>>;
  readonly globals?: Readonly<Record<string, unknown>>;
  readonly random?: RandomSource;
}
