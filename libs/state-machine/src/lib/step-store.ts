// The execution being changed by one event: the fields `next` changes, the task
// runs it writes, the actions it produces, and the reads and writes it does them with.
import type { Flow, Task } from '@lanner/model';
import { buildContext, outputKey } from './context';
import { taskById } from './flow-index';
import type { PersistentMap } from './persistent-map';
import type { RenderContext, RenderOptions } from './render';
import { copyRun } from './shapes';
import { type ExecutionState, isTerminal, type TaskRunState, transition } from './states';
import type {
  ContainerProgress,
  Execution,
  ExecutionAction,
  Millis,
  NextResult,
  TaskOutputEntry,
  TaskRun,
  TimerKind,
  RenderEnvironment,
} from './types';

/** The root container (the flow's own tasks/errors/finally) has this id. */
export const ROOT = '';

export function timerId(taskRunId: string, kind: TimerKind, attempt: number): string {
  return `${taskRunId}|${kind}|${attempt}`;
}

/**
 * The execution as one event changes it: the fields that change, the task
 * runs written (kept aside until `flush`), the actions produced, and the
 * reads and writes every rule goes through. `result()` makes the new
 * execution value, or returns the given one when nothing changed.
 */
export class StepStore {
  protected state: ExecutionState;
  protected histories: Execution['histories'];
  protected labels: Execution['labels'];
  protected outputs: Execution['outputs'];
  protected error: string | undefined;
  protected root: ContainerProgress;
  protected halt: Execution['halt'];
  protected nextSeq: number;
  protected taskRuns: PersistentMap<TaskRun>;
  protected live: PersistentMap<true>;
  protected taskOutputs: PersistentMap<TaskOutputEntry>;
  /**
   * Task runs written during this event, stored into the persistent maps once
   * at the end (`flush`): a parent whose counters change three times in one
   * event costs one trie write, not three.
   */
  protected readonly dirty: Map<string, TaskRun>;
  protected readonly actions: ExecutionAction[] = [];
  protected changed = false;

  /** What every rendering of this event gets: `now` and the environment's random source. */
  readonly renderOptions: RenderOptions;

  constructor(
    readonly flow: Flow,
    protected readonly base: Execution,
    readonly now: Millis,
    protected readonly environment: RenderEnvironment = {},
  ) {
    this.renderOptions = environment.random !== undefined ? { now, random: environment.random } : { now };
    this.state = base.state;
    this.histories = base.histories;
    this.labels = base.labels;
    this.outputs = base.outputs;
    this.error = base.error;
    this.root = base.root;
    this.halt = base.halt;
    this.nextSeq = base.nextSeq;
    this.taskRuns = base.taskRuns;
    this.live = base.liveTaskRuns;
    this.dirty = new Map();
    this.taskOutputs = base.taskOutputs;
  }

  result(): NextResult {
    if (!this.changed) return { execution: this.base, actions: [] };
    this.flush();
    const base = this.base;
    // Written out field by field (not spread) so every execution value has the same shape.
    const execution: Execution = {
      id: base.id,
      tenant: base.tenant,
      namespace: base.namespace,
      flowId: base.flowId,
      flowRevision: base.flowRevision,
      state: this.state,
      histories: this.histories,
      inputs: base.inputs,
      outputs: this.outputs,
      labels: this.labels,
      variables: base.variables,
      parent: base.parent,
      trigger: base.trigger,
      retryAttempt: base.retryAttempt,
      originalExecutionId: base.originalExecutionId,
      replayOf: base.replayOf,
      error: this.error,
      version: base.version + 1,
      taskRuns: this.taskRuns,
      liveTaskRuns: this.live,
      taskOutputs: this.taskOutputs,
      root: this.root,
      nextSeq: this.nextSeq,
      halt: this.halt,
    };
    return { execution, actions: this.actions };
  }

  get executionId(): string {
    return this.base.id;
  }

  get flowRevision(): number {
    return this.base.flowRevision;
  }

  get halted(): boolean {
    return this.halt !== undefined;
  }

  addLabels(labels: Readonly<Record<string, string>>): void {
    this.labels = { ...this.labels, ...labels };
    this.emit({ type: 'set-labels', labels });
  }

  protected find(id: string): TaskRun | undefined {
    return this.dirty.get(id) ?? this.taskRuns.get(id);
  }

  run(id: string): TaskRun {
    const run = this.find(id);
    if (run === undefined) throw new Error(`Unknown task run ${id}`);
    return run;
  }

  protected task(run: TaskRun): Task {
    return taskById(this.flow, run.taskId);
  }

  putRun(run: TaskRun): TaskRun {
    this.dirty.set(run.id, run);
    this.changed = true;
    return run;
  }

  /** Stores the written task runs into the persistent maps and keeps the live set in step. */
  protected flush(): void {
    for (const run of this.dirty.values()) {
      this.taskRuns = this.taskRuns.set(run.id, run);
      if (isTerminal(run.state)) {
        if (this.live.has(run.id)) this.live = this.live.delete(run.id);
      } else if (!this.live.has(run.id)) {
        this.live = this.live.set(run.id, true);
      }
    }
    this.dirty.clear();
  }

  moveRun(run: TaskRun, to: TaskRunState, patch: Partial<TaskRun> = {}): TaskRun {
    transition('task run', run.state, to, run.id);
    const histories = run.histories.slice();
    histories.push({ state: to, at: this.now });
    return this.putRun(copyRun(run, { ...patch, state: to, histories }));
  }

  protected moveExecution(to: ExecutionState): void {
    this.state = transition('execution', this.state, to, this.base.id);
    this.histories = [...this.histories, { state: to, at: this.now }];
    this.changed = true;
  }

  recordOutputs(run: TaskRun): void {
    if (run.outputs === undefined) return;
    const key = outputKey(run.taskId, run.forEachValues);
    this.taskOutputs = this.taskOutputs.set(key, {
      taskId: run.taskId,
      forEachValues: run.forEachValues ?? [],
      outputs: run.outputs,
    });
  }

  context(run?: TaskRun): RenderContext {
    return buildContext(
      {
        flow: this.flow,
        execution: { ...this.base, histories: this.histories },
        labels: this.labels,
        taskOutputs: this.taskOutputs,
        ...(this.environment.envs !== undefined ? { envs: this.environment.envs } : {}),
        ...(this.environment.globals !== undefined ? { globals: this.environment.globals } : {}),
        eachTaskRun: (visit) => {
          this.taskRuns.forEach((stored, id) => visit(this.dirty.get(id) ?? stored));
          this.dirty.forEach((changed, id) => {
            if (!this.taskRuns.has(id)) visit(changed);
          });
        },
        taskRunById: (id) => this.dirty.get(id) ?? this.taskRuns.get(id),
      },
      run,
    );
  }

  emit(action: ExecutionAction): void {
    this.actions.push(action);
    this.changed = true;
  }

  scheduleTimer(taskRunId: string, kind: TimerKind, attempt: number, at: Millis): void {
    this.emit({ type: 'schedule-timer', timer: { id: timerId(taskRunId, kind, attempt), kind, at, taskRunId, attempt } });
  }

  cancelTimer(taskRunId: string, kind: TimerKind, attempt: number, exists: boolean): void {
    if (exists) this.emit({ type: 'cancel-timer', timerId: timerId(taskRunId, kind, attempt) });
  }

  protected progressOf(containerId: string): ContainerProgress {
    if (containerId === ROOT) return this.root;
    const progress = this.run(containerId).progress;
    if (progress === undefined) throw new Error(`Task run ${containerId} has no progress`);
    return progress;
  }

  setProgress(containerId: string, progress: ContainerProgress): void {
    if (containerId === ROOT) {
      this.root = progress;
      this.changed = true;
    } else {
      this.putRun(copyRun(this.run(containerId), { progress }));
    }
  }
}
