// The rules of one flowable kind, behind one interface. The engine in
// ../next.ts runs every container the same way (lanes up to a limit, then the
// errors and finally branches, then the end) and asks a kind's rules only what
// differs: the progress it starts with, its lanes, which lane starts next, its
// say when its main branch ended, and, for kinds without children (Pause,
// Subflow, Fail, Labels), what running, stopping and timing out means.
import type { Flow, FlowableTask, Task } from '@lanner/model';
import type { LaneEnd } from '../progress';
import type { RenderContext, RenderOptions } from '../render';
import type { TaskRunState } from '../states';
import type { ContainerProgress, DagTaskState, ExecutionAction, JsonObject, Millis, Outcome, TaskRun, TimerKind } from '../types';

/** The lanes of a container's branch: how many, how many may run at once, the tasks of each. */
export interface Lanes {
  readonly count: number;
  readonly limit: number;
  readonly tasksOf: (lane: number) => readonly Task[];
}

const NO_TASKS: readonly Task[] = [];

/** One lane of `tasks`, run one after the other (Sequential, a branch, errors, finally). */
export function oneLane(tasks: readonly Task[] | undefined): Lanes {
  return { count: 1, limit: 1, tasksOf: () => tasks ?? NO_TASKS };
}

/** What a kind's rules may read and do in the event being applied (the engine implements it). */
export interface FlowableStep {
  readonly flow: Flow;
  readonly executionId: string;
  /** The revision of the flow the execution runs. */
  readonly flowRevision: number;
  readonly now: Millis;
  /** The options every rendering gets (`now`, the random source). */
  readonly renderOptions: RenderOptions;
  /** A kill or a CREATE_NEW_EXECUTION retry is stopping the execution. */
  readonly halted: boolean;
  context(run?: TaskRun): RenderContext;
  run(id: string): TaskRun;
  moveRun(run: TaskRun, to: TaskRunState, patch?: Partial<TaskRun>): TaskRun;
  /** Writes a task run without a state change. */
  putRun(run: TaskRun): TaskRun;
  /** Ends a task run from RUNNING or KILLING with its allowFailure/allowWarning applied. */
  finishRun(run: TaskRun, task: Task, outcome: Outcome, patch?: Partial<TaskRun>): TaskRun;
  setProgress(containerId: string, progress: ContainerProgress): void;
  /** Makes the run's outputs readable as `outputs.<taskId>`. */
  recordOutputs(run: TaskRun): void;
  emit(action: ExecutionAction): void;
  scheduleTimer(taskRunId: string, kind: TimerKind, attempt: number, at: Millis): void;
  /** `exists`: whether the timer was scheduled (no action otherwise). */
  cancelTimer(taskRunId: string, kind: TimerKind, attempt: number, exists: boolean): void;
  /** A task run paused: the execution is PAUSED while any is. */
  executionPaused(): void;
  addLabels(labels: Readonly<Record<string, string>>): void;
}

/**
 * What a kind says when its main branch ended without a kill: end now with an
 * outcome (and an error), keep waiting ('wait'), or nothing (undefined): the
 * errors and finally branches follow as for any container.
 */
export type MainEnd = undefined | 'wait' | { readonly outcome: Outcome; readonly error?: string };

/** A flowable that runs child tasks in lanes (Sequential, Parallel, If, Switch, ForEach, Dag, AllowFailure, WaitFor). */
export interface ContainerRules<T extends Task = Task> {
  readonly hasChildren: true;
  /** A failure of the container ends it WARNING, as allowFailure does (AllowFailure). */
  readonly failsAsWarning?: boolean;
  /** Every task list of its main branch, whether it runs or not (the flow's task index walks them). */
  taskLists(task: T): (readonly Task[])[];
  /** The progress it starts with: what it renders once at its start (may throw a render error, which fails it). */
  start(task: T, step: FlowableStep, run: TaskRun): ContainerProgress;
  /**
   * Runs once it is RUNNING with its start progress, before any lane starts
   * (Pause with `tasks`: it pauses). Lanes start only if it is still RUNNING.
   */
  started?(task: T, step: FlowableStep, run: TaskRun): void;
  /** Cancels the timers it scheduled itself (Pause), when it ends by any other way than them. */
  cancelTimers?(task: T, step: FlowableStep, run: TaskRun): void;
  /** Its outputs from its start, readable by its children (WaitFor: `iterationCount`). */
  startOutputs?(progress: ContainerProgress): JsonObject;
  /** The lanes of its main branch. */
  lanes(task: T, progress: ContainerProgress): Lanes;
  /**
   * Kinds that start lanes as they become ready rather than in order, and keep
   * each lane's state in their progress (Dag). Without it lanes start in order
   * (`nextLane`).
   */
  readonly laneStates?: LaneStates<T>;
  /** The value of a main-branch lane, given to its task runs (ForEach: `taskrun.value`, an `@<lane>` id suffix). */
  laneValue?(progress: ContainerProgress, lane: number): string | undefined;
  /** The loop iteration its children run in, when not the first (WaitFor: `taskrun.iteration`, a `~<n>` id suffix). */
  iteration?(progress: ContainerProgress): number | undefined;
  /** True while it waits for a timer between iterations, with no lane running (WaitFor). */
  idle?(progress: ContainerProgress): boolean;
  /** Its say once its main branch ended `outcome` (not KILLED): see `MainEnd`. */
  mainEnded?(task: T, step: FlowableStep, run: TaskRun, progress: ContainerProgress, outcome: Outcome): MainEnd;
}

/** Lanes started by readiness, with a state per lane (`ContainerProgress.dag`). */
export interface LaneStates<T extends Task = Task> {
  /** A lane whose turn has come, or undefined. */
  next(task: T, progress: ContainerProgress): number | undefined;
  /** The states with `lane` booked as `end` (started and running: 'live'). */
  record(states: readonly DagTaskState[], lane: number, end: LaneEnd): readonly DagTaskState[];
  /** Whether a lane never started (a restart skips it). */
  neverStarted(states: readonly DagTaskState[], lane: number): boolean;
}

/** A flowable without children that the executor runs itself (Pause, Subflow, Fail, Labels). */
export interface LeafRules<T extends Task = Task> {
  readonly hasChildren: false;
  /** Runs it from RUNNING; returns its state afterwards (terminal when it ended at once). A render error fails it. */
  run(task: T, step: FlowableStep, run: TaskRun): TaskRunState;
  /** Stops it while RUNNING (a kill, a timeout above it) without telling its parent; returns it KILLING or KILLED. */
  kill?(task: T, step: FlowableStep, run: TaskRun): TaskRun;
  /** Cancels the timers it scheduled itself (Pause), when it ends by any other way than them. */
  cancelTimers?(task: T, step: FlowableStep, run: TaskRun): void;
  /** Its own `timeout` fired for the start numbered `round`; returns it ended, or undefined when the timer is stale. */
  timedOut?(task: T, step: FlowableStep, run: TaskRun, round: number): TaskRun | undefined;
}

export type FlowableRules<T extends Task = Task> = ContainerRules<T> | LeafRules<T>;

export type FlowableKind = FlowableTask['kind'];
export type FlowableOfKind<K extends FlowableKind> = Extract<FlowableTask, { kind: K }>;
