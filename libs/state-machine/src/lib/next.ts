// next(flow, execution, event, now) -> { execution, actions }: the whole
// execution state machine. Pure: the clock is `now`, randomness (random retry)
// is derived from the task run id and attempt.
//
// Shape of the work per event: the execution being changed (`StepStore`,
// step-store.ts) holds the changed fields and writes task runs into
// persistent maps (structural sharing), so
// an event costs O(depth of the flow + log32(task runs)), never O(task runs).
// Flowables keep counters (`ContainerProgress`) instead of child lists; a child
// finds its siblings by deterministic id.
//
// This file is the engine: events, the execution's lifecycle, runnable
// attempts, and containers run the same way for every kind. What differs per
// flowable kind lives in flowables/<kind>.ts behind `FlowableRules`.
import type { Flow, RetryPolicy, RunnableTask, Task } from '@lanner/model';
import { endAttempt, formatDuration, lastAttempt, replaceLast } from './attempts';
import { isJsonObject } from './context';
import { isRunnable } from './flow-index';
import {
  type ContainerRules,
  type FlowableStep,
  type Lanes,
  oneLane,
  pauseTimedOut,
  resumePause,
  rulesOf,
  startNextIteration,
  subflowChildEnded,
} from './flowables';
import { childEnd, EMPTY_PROGRESS, type LaneEnd, stageOutcome } from './progress';
import { repeatedWorkerLoss } from './quarantine';
import { realFailures, retryAllowed, retryDelay } from './retry';
import { ROOT, StepStore } from './step-store';
import { copyAttempt, copyRun, withCounters } from './shapes';
import { renderAny, renderCondition, renderFailure } from './render';
import { type ExecutionState, isTerminal, type TaskRunState } from './states';
import type {
  ContainerProgress,
  Execution,
  ExecutionEvent,
  JsonObject,
  JsonValue,
  Millis,
  NextResult,
  Outcome,
  RenderEnvironment,
  Stage,
  TaskRun,
  Timer,
} from './types';

/** `environment`: Kestra's `envs` and `globals` and the random source of uuid() and the like (see `RenderEnvironment`). */
export function next(
  flow: Flow,
  execution: Execution,
  event: ExecutionEvent,
  now: Millis,
  environment: RenderEnvironment = {},
): NextResult {
  const step = new Step(flow, execution, now, environment);
  step.apply(event);
  step.checkAssertions();
  return step.result();
}

const NO_TASKS: readonly Task[] = [];
/** The error of a task run whose worker was lost in a group whose restart strategy is NEVER. */
const NEVER_RESTARTED =
  "The worker running this task was lost and its worker group's restart strategy is NEVER: the task is not run again";

class Step extends StepStore implements FlowableStep {
  apply(event: ExecutionEvent): void {
    switch (event.type) {
      case 'created':
        return this.onCreated(event.runningExecutions ?? 0);
      case 'concurrency-slot-freed':
        if (this.state !== 'QUEUED') return;
        // A restart waiting for its slot re-runs what failed; a new execution starts from the top.
        if (this.queuedByRestart()) this.rerunExecution();
        else this.startExecution();
        return;
      case 'task-run-started':
        return this.onStarted(event.taskRunId, event.attempt, event.workerId, event.workerQueueId);
      case 'task-run-result':
        return this.onResult(event.taskRunId, event.attempt, event.state, event.outputs, event.error, event);
      case 'task-run-queued':
        return this.onQueued(event.taskRunId, event.attempt, event.workerQueueId, event.waitingReason, event.reason);
      case 'task-run-dispatch-refused':
        return this.onDispatchRefused(event.taskRunId, event.attempt, event.state, event.reason, event.attemptFailed === true);
      case 'worker-lost':
        return this.onWorkerLost(event.taskRunId, event.attempt, event.neverRestart === true);
      case 'task-run-deadline-passed':
        return this.onDeadlinePassed(event.taskRunId, event.attempt);
      case 'timer-fired':
        return this.onTimer(event.timer);
      case 'kill-requested':
        return this.onKill();
      case 'resume-requested':
        return this.onResume(event.taskRunId, event.inputs);
      case 'restart-requested':
        if (!acceptsRestart(this.base, event.expectedVersion)) return;
        return this.onRestart(event.runningExecutions ?? 0);
      case 'subflow-ended':
        return this.onSubflowEnded(
          event.taskRunId,
          event.executionId,
          event.state,
          event.outputs,
          event.error,
          event.childContext,
        );
    }
  }

  // ---- Execution lifecycle ----------------------------------------------------------

  private onCreated(runningExecutions: number): void {
    if (this.state !== 'CREATED') return;
    if (this.refusedByConcurrencyLimit(runningExecutions)) return;
    this.startExecution();
  }

  /**
   * The flow's concurrency limit, for an execution about to run (new, from
   * CREATED, or restarted, from RESTARTED): with `runningExecutions` other
   * executions holding a slot and the limit reached, it waits in QUEUED
   * (behavior QUEUE) or ends CANCELLED / FAILED, and true is returned.
   */
  private refusedByConcurrencyLimit(runningExecutions: number): boolean {
    const concurrency = this.flow.concurrency;
    if (concurrency === undefined || runningExecutions < concurrency.limit) return false;
    if (concurrency.behavior === 'QUEUE') {
      this.moveExecution('QUEUED');
    } else if (concurrency.behavior === 'CANCEL') {
      this.moveExecution('CANCELLED');
      this.emit({ type: 'end', state: 'CANCELLED' });
    } else {
      this.error = `The flow's concurrency limit (${concurrency.limit}) is reached`;
      this.moveExecution('FAILED');
      this.emit({ type: 'end', state: 'FAILED' });
    }
    return true;
  }

  /** QUEUED straight after RESTARTED: a restart waiting for a concurrency slot. */
  private queuedByRestart(): boolean {
    return this.state === 'QUEUED' && this.histories[this.histories.length - 2]?.state === 'RESTARTED';
  }

  private startExecution(): void {
    this.moveExecution('RUNNING');
    // Kestra measures a MAX_DURATION SLA from the execution's start date (its creation).
    const startedAt = this.histories[0]?.at ?? this.now;
    (this.flow.sla ?? []).forEach((sla, index) => {
      if (sla.type === 'MAX_DURATION') this.scheduleTimer(this.base.id, 'sla-max-duration', index, startedAt + sla.durationMs);
    });
    this.changed = true;
    // A replay from a task run carries the runs before it over and runs again from it (replay.ts).
    if (this.base.replayOf?.taskRunId !== undefined) this.restartContainer(ROOT, 'replay');
    else this.root = EMPTY_PROGRESS;
    this.advance(ROOT);
  }

  private endExecution(outcome: Outcome): void {
    if (this.halt?.reason === 'retry') {
      this.moveExecution('RETRIED');
      const retryAttempt = this.base.retryAttempt + 1;
      const originalExecutionId = this.base.originalExecutionId ?? this.base.id;
      this.emit({
        type: 'create-retry-execution',
        executionId: `${originalExecutionId}-retry${retryAttempt}`,
        at: this.halt.retryAt ?? this.now,
        retryAttempt,
        originalExecutionId,
      });
      this.emit({ type: 'end', state: 'RETRIED' });
      return;
    }
    this.cancelSlaTimers();
    if (this.halt?.reason === 'sla') {
      const final = this.halt.slaOutcome ?? 'FAILED';
      this.moveExecution(final);
      this.emit({ type: 'end', state: final });
      return;
    }
    if (this.state === 'KILLING' || outcome === 'KILLED') {
      if (this.state !== 'KILLING') this.moveExecution('KILLING');
      this.moveExecution('KILLED');
      this.emit({ type: 'end', state: 'KILLED' });
      return;
    }
    let final: ExecutionState = outcome;
    if (outcome !== 'FAILED' && this.flow.outputs.length > 0) {
      try {
        const context = this.context();
        const outputs: JsonObject = {};
        for (const output of this.flow.outputs) {
          outputs[output.id] = coerceOutput(renderAny(output.value, context, this.renderOptions), output.type);
        }
        this.outputs = outputs;
      } catch (error) {
        this.error = `Flow outputs: ${renderFailure(error)}`;
        final = 'FAILED';
      }
    }
    if (this.state === 'PAUSED') this.moveExecution('RUNNING');
    this.moveExecution(final);
    this.emit({ type: 'end', state: final });
  }

  /**
   * Kestra evaluates EXECUTION_ASSERTION SLAs on every change of a running
   * execution: the first whose assertion renders falsy is violated. One that
   * does not render is not judged.
   */
  checkAssertions(): void {
    const slas = this.flow.sla;
    if (slas === undefined || this.halt !== undefined || (this.state !== 'RUNNING' && this.state !== 'PAUSED')) return;
    for (const sla of slas) {
      if (sla.type !== 'EXECUTION_ASSERTION') continue;
      let text: string;
      try {
        text = String(renderAny(sla.assert, this.context(), this.renderOptions));
      } catch {
        continue;
      }
      if (!['false', '0', '-0', ''].includes(text.trim())) continue;
      this.slaViolated(sla, `assertion is false: ${sla.assert}`);
      return;
    }
  }

  /** A violated SLA: its labels are added; FAIL and CANCEL stop the execution, which ends FAILED or CANCELLED. */
  private slaViolated(sla: NonNullable<Flow['sla']>[number], reason: string): void {
    const labels = renderAny(sla.labels, this.context(), this.renderOptions) as Record<string, unknown>;
    const missing = Object.entries(labels).filter(([key, value]) => this.labels[key] !== String(value));
    if (missing.length > 0) this.addLabels(Object.fromEntries(missing.map(([key, value]) => [key, String(value)])));
    if (sla.behavior === 'NONE' || this.halt !== undefined) return;
    this.error = `SLA '${sla.id}' violated: ${reason}`;
    if (this.state === 'PAUSED') this.moveExecution('RUNNING');
    this.halt = { reason: 'sla', slaOutcome: sla.behavior === 'FAIL' ? 'FAILED' : 'CANCELLED' };
    this.stopLiveTaskRuns();
  }

  /** The MAX_DURATION timers set when the execution started (a restart ended them already). */
  private cancelSlaTimers(): void {
    const pending = !this.histories.some((change) => change.state === 'RESTARTED');
    (this.flow.sla ?? []).forEach((sla, index) => {
      if (sla.type === 'MAX_DURATION') this.cancelTimer(this.base.id, 'sla-max-duration', index, pending);
    });
  }

  private onKill(): void {
    if (this.state === 'CREATED' || this.state === 'QUEUED') {
      this.moveExecution('CANCELLED');
      this.emit({ type: 'end', state: 'CANCELLED' });
      return;
    }
    if (this.state === 'RETRYING') this.moveExecution('RUNNING');
    if (this.state !== 'RUNNING' && this.state !== 'PAUSED') return;
    this.moveExecution('KILLING');
    this.halt = { reason: 'kill' };
    this.stopLiveTaskRuns();
  }

  /** Kill (or stop for a CREATE_NEW_EXECUTION retry) every live task run; the execution ends when none is live. */
  private stopLiveTaskRuns(): void {
    const ids: string[] = [];
    this.flush();
    this.live.forEach((_, id) => ids.push(id));
    // Containers first, so their children's ends find them KILLING and do not start siblings.
    const containers: TaskRun[] = [];
    const leaves: TaskRun[] = [];
    for (const id of ids) {
      const run = this.run(id);
      if (run.progress !== undefined && run.state === 'RUNNING') containers.push(run);
      else leaves.push(run);
    }
    for (const container of containers) this.moveRun(container, 'KILLING');
    for (const leaf of leaves) this.stopLeaf(leaf.id);
    // A container with no running child (a WaitFor between iterations) ends now.
    for (const container of containers) {
      const current = this.run(container.id);
      if (current.state === 'KILLING' && (current.progress?.running ?? 0) === 0 && this.advance(current.id)) {
        this.childEnded(this.run(current.id));
      }
    }
    if (this.root.running === 0 && !isFinalExecution(this.state)) this.advance(ROOT);
  }

  private stopLeaf(id: string): void {
    const run = this.run(id);
    if (isTerminal(run.state)) return;
    const stopped = this.killLeaf(run, true);
    if (isTerminal(stopped.state)) this.childEnded(stopped);
  }

  /**
   * Kills one live task run that is not a running container, without telling
   * its parent: its job and its subflow are killed, its timers cancelled.
   * Returns it afterwards: KILLED (or CANCELLED when it never started), or
   * KILLING while the worker running its job has to answer, when
   * `awaitWorker` (an execution's kill); a timeout does not wait.
   */
  private killLeaf(run: TaskRun, awaitWorker: boolean): TaskRun {
    const task = this.task(run);
    const attemptNumber = lastAttempt(run)?.attempt ?? 1;
    switch (run.state) {
      case 'CREATED':
        return this.moveRun(run, 'CANCELLED');
      case 'SUBMITTED':
        this.emit({ type: 'kill-job', taskRunId: run.id, attempt: attemptNumber });
        this.cancelTimer(run.id, 'task-timeout', attemptNumber, task.timeoutMs !== undefined);
        return this.moveRun(run, 'KILLED', { attempts: endAttempt(run, 'KILLED', this.now) });
      case 'RESUBMITTED':
      case 'RETRYING':
        if (run.state === 'RETRYING') this.cancelTimer(run.id, 'retry', attemptNumber, true);
        return this.moveRun(this.moveRun(run, 'SUBMITTED'), 'KILLED');
      case 'PAUSED':
        this.cancelOwnTimers(run, task);
        return this.moveRun(this.moveRun(this.moveRun(run, 'RUNNING'), 'KILLING'), 'KILLED');
      case 'RUNNING': {
        const rules = rulesOf(task);
        if (rules?.hasChildren === false && rules.kill !== undefined) return rules.kill(task, this, run);
        if (isRunnable(task)) {
          this.emit({ type: 'kill-job', taskRunId: run.id, attempt: attemptNumber });
          const killing = this.moveRun(run, 'KILLING');
          if (awaitWorker) return killing; // the worker answers KILLED
          this.cancelTimer(run.id, 'task-timeout', attemptNumber, task.timeoutMs !== undefined);
          return this.moveRun(killing, 'KILLED', { attempts: endAttempt(killing, 'KILLED', this.now) });
        }
        return this.moveRun(run, 'KILLING');
      }
      case 'KILLING':
        if (awaitWorker) return run;
        if (!isRunnable(task)) return this.moveRun(run, 'KILLED');
        this.cancelTimer(run.id, 'task-timeout', attemptNumber, task.timeoutMs !== undefined);
        return this.moveRun(run, 'KILLED', { attempts: endAttempt(run, 'KILLED', this.now) });
      default:
        return run;
    }
  }

  /**
   * A restart asks for a slot of the flow's concurrency limit as a new execution
   * does: refused, it waits in QUEUED (its failed task runs stay as they are
   * until `concurrency-slot-freed`) or ends CANCELLED / FAILED.
   */
  private onRestart(runningExecutions: number): void {
    this.moveExecution('RESTARTED');
    this.halt = undefined;
    this.outputs = undefined;
    this.error = undefined;
    if (this.refusedByConcurrencyLimit(runningExecutions)) return;
    this.rerunExecution();
  }

  /** From RESTARTED (or QUEUED after it): re-run the failed, killed and cancelled task runs. */
  private rerunExecution(): void {
    this.moveExecution('RUNNING');
    this.restartContainer(ROOT, 'restart');
    this.advance(ROOT);
  }

  // ---- Worker events -------------------------------------------------------------------

  private onStarted(taskRunId: string, attemptNumber: number, workerId: string, workerQueueId: string): void {
    if (isFinalExecution(this.state)) return;
    const run = this.find(taskRunId);
    if (run === undefined || run.state !== 'SUBMITTED') return;
    const attempt = lastAttempt(run);
    if (attempt === undefined || attempt.attempt !== attemptNumber) return;
    this.moveRun(run, 'RUNNING', {
      workerQueueId,
      waitingReason: undefined,
      attempts: replaceLast(
        run.attempts,
        copyAttempt(attempt, { state: 'RUNNING', startedAt: this.now, workerId, workerQueueId }),
      ),
    });
  }

  private onResult(
    taskRunId: string,
    attemptNumber: number,
    resultState: 'SUCCESS' | 'WARNING' | 'FAILED' | 'KILLED',
    outputs: JsonObject | undefined,
    error: string | undefined,
    ranBy: { readonly workerId?: string; readonly workerQueueId?: string } = {},
  ): void {
    // A result for an ended execution is dropped (WORKERS.md: jobs of ended executions).
    if (isFinalExecution(this.state)) return;
    let run = this.find(taskRunId);
    if (run === undefined) return;
    const attempt = lastAttempt(run);
    if (attempt === undefined || attempt.attempt !== attemptNumber) return;
    if (run.state !== 'SUBMITTED' && run.state !== 'RUNNING' && run.state !== 'KILLING') return;
    const task = this.task(run);
    if (!isRunnable(task)) return;
    if (task.timeoutMs !== undefined) this.cancelTimer(run.id, 'task-timeout', attemptNumber, true);
    if (run.state === 'SUBMITTED') {
      run = this.moveRun(run, 'RUNNING', {
        ...(ranBy.workerQueueId !== undefined ? { workerQueueId: ranBy.workerQueueId } : {}),
        attempts: replaceLast(
          run.attempts,
          copyAttempt(attempt, {
            state: 'RUNNING',
            startedAt: this.now,
            workerId: ranBy.workerId,
            workerQueueId: ranBy.workerQueueId,
          }),
        ),
      });
    }
    if (run.state === 'KILLING' || resultState === 'KILLED') {
      if (run.state !== 'KILLING') run = this.moveRun(run, 'KILLING');
      run = this.moveRun(run, 'KILLED', { attempts: endAttempt(run, 'KILLED', this.now, { error }) });
      this.childEnded(run);
      return;
    }
    if (resultState === 'FAILED') {
      this.failRunnable(run, task, error ?? 'The task failed', outputs);
      return;
    }
    let final: TaskRunState =
      resultState === 'SUCCESS' && this.retryOf(run, task)?.warningOnRetry && attempt.attempt > 1 ? 'WARNING' : resultState;
    if (final === 'WARNING' && task.allowWarning) final = 'SUCCESS';
    run = this.moveRun(run, final, {
      outputs,
      attempts: endAttempt(run, resultState, this.now, { outputs }),
    });
    this.recordOutputs(run);
    this.childEnded(run);
  }

  private onQueued(
    taskRunId: string,
    attemptNumber: number,
    workerQueueId: string,
    waitingReason: string | undefined,
    dispatchReason: string | undefined,
  ): void {
    if (isFinalExecution(this.state)) return;
    const run = this.find(taskRunId);
    if (run === undefined || run.state !== 'SUBMITTED' || lastAttempt(run)?.attempt !== attemptNumber) return;
    if (run.workerQueueId === workerQueueId && run.waitingReason === waitingReason && run.dispatchReason === dispatchReason)
      return;
    this.putRun(copyRun(run, { workerQueueId, waitingReason, dispatchReason }));
  }

  private onDispatchRefused(
    taskRunId: string,
    attemptNumber: number,
    refused: 'FAILED' | 'CANCELLED',
    reason: string,
    attemptFailed: boolean,
  ): void {
    if (isFinalExecution(this.state)) return;
    let run = this.find(taskRunId);
    if (run === undefined || run.state !== 'SUBMITTED' || lastAttempt(run)?.attempt !== attemptNumber) return;
    const task = this.task(run);
    if (task.timeoutMs !== undefined) this.cancelTimer(run.id, 'task-timeout', attemptNumber, true);
    if (attemptFailed && refused === 'FAILED' && isRunnable(task)) {
      this.failRunnable(copyRun(run, { waitingReason: undefined }), task, reason, undefined);
      return;
    }
    run = this.moveRun(run, refused, {
      error: reason,
      waitingReason: undefined,
      dispatchReason: reason,
      attempts: endAttempt(run, refused, this.now, { error: reason }),
    });
    this.childEnded(run);
  }

  private onWorkerLost(taskRunId: string, attemptNumber: number, neverRestart: boolean): void {
    if (isFinalExecution(this.state)) return;
    let run = this.find(taskRunId);
    if (run === undefined || lastAttempt(run)?.attempt !== attemptNumber) return;
    if (run.state === 'KILLING') {
      run = this.moveRun(run, 'KILLED', { attempts: endAttempt(run, 'KILLED', this.now, { error: 'The worker was lost' }) });
      this.childEnded(run);
      return;
    }
    if (run.state !== 'SUBMITTED' && run.state !== 'RUNNING') return;
    const task = this.task(run);
    if (!isRunnable(task)) return;
    if (task.timeoutMs !== undefined) this.cancelTimer(run.id, 'task-timeout', attemptNumber, true);
    if (run.state === 'SUBMITTED') run = this.moveRun(run, 'RUNNING');
    // The worker group's restart strategy is NEVER: the job is not run again, not even by a retry.
    if (neverRestart) return this.failRunnable(run, task, NEVER_RESTARTED, undefined, false);
    // A job whose run stopped its worker twice would stop every worker it is sent to: it fails (retries apply).
    const repeatedLoss = repeatedWorkerLoss(run.attempts);
    if (repeatedLoss !== undefined) return this.failRunnable(run, task, repeatedLoss, undefined);
    run = this.moveRun(run, 'RESUBMITTED', {
      attempts: endAttempt(run, 'RESUBMITTED', this.now, { error: 'The worker was lost; the job was put back on its queue' }),
    });
    // A re-dispatched job keeps its worker queue and selector (WORKERS.md, Kestra #7730).
    this.dispatch(run, task, run.workerQueueId);
  }

  private onTimer(timer: Timer): void {
    if (isFinalExecution(this.state)) return;
    if (timer.kind === 'sla-max-duration') {
      const sla = this.flow.sla?.[timer.attempt];
      if (sla?.type === 'MAX_DURATION') this.slaViolated(sla, `the execution ran longer than ${formatDuration(sla.durationMs)}`);
      return;
    }
    const run = this.find(timer.taskRunId);
    if (run === undefined) return;
    switch (timer.kind) {
      case 'task-timeout':
        return this.onTaskTimeout(run, timer.attempt);
      case 'retry': {
        if (run.state !== 'RETRYING' || lastAttempt(run)?.attempt !== timer.attempt) return;
        const task = this.task(run);
        // A retried job goes back to the queue it ran on, not to a re-resolved one (Kestra #7730).
        if (isRunnable(task)) this.dispatch(run, task, run.workerQueueId);
        return;
      }
      case 'pause-resume':
        if (run.state === 'PAUSED') this.resumePaused(run, {});
        return;
      case 'pause-timeout': {
        const task = this.task(run);
        if (run.state !== 'PAUSED' || task.kind !== 'Pause') return;
        const ended = pauseTimedOut(task, this, run);
        this.afterPauseChange();
        this.childEnded(ended);
        return;
      }
      case 'waitfor-next':
        if (startNextIteration(this, run, timer.attempt) && this.advance(run.id)) this.childEnded(this.run(run.id));
        return;
    }
  }

  /** The job's deadline passed before anyone started it: the timeout, told early (its timer is then cancelled). */
  private onDeadlinePassed(taskRunId: string, attemptNumber: number): void {
    if (isFinalExecution(this.state)) return;
    const run = this.find(taskRunId);
    if (run === undefined || lastAttempt(run)?.attempt !== attemptNumber) return;
    const task = this.task(run);
    if (!isRunnable(task) || (run.state !== 'SUBMITTED' && run.state !== 'RUNNING' && run.state !== 'KILLING')) return;
    if (task.timeoutMs !== undefined) this.cancelTimer(run.id, 'task-timeout', attemptNumber, true);
    this.onTaskTimeout(run, attemptNumber);
  }

  private onTaskTimeout(run: TaskRun, attemptNumber: number): void {
    if (run.progress !== undefined) return this.onContainerTimeout(run, attemptNumber);
    const task = this.task(run);
    const rules = rulesOf(task);
    if (rules?.hasChildren === false && rules.timedOut !== undefined) {
      const ended = rules.timedOut(task, this, run, attemptNumber);
      if (ended !== undefined) this.childEnded(ended);
      return;
    }
    const attempt = lastAttempt(run);
    if (attempt === undefined || attempt.attempt !== attemptNumber) return;
    if (!isRunnable(task)) return;
    if (run.state === 'KILLING') {
      this.childEnded(this.moveRun(run, 'KILLED', { attempts: endAttempt(run, 'KILLED', this.now) }));
      return;
    }
    if (run.state !== 'SUBMITTED' && run.state !== 'RUNNING') return;
    this.emit({ type: 'kill-job', taskRunId: run.id, attempt: attemptNumber });
    const limit = formatDuration(task.timeoutMs ?? 0);
    // The message says which case holds: a task no worker ever started, or one that ran too long.
    const message =
      run.state === 'SUBMITTED'
        ? `Timed out after ${limit}: no worker started the job${run.workerQueueId ? ` on queue '${run.workerQueueId}'` : ''}` +
          (run.waitingReason ? ` (${run.waitingReason})` : '')
        : `Timed out after ${limit} on worker '${attempt.workerId ?? 'unknown'}'`;
    this.failRunnable(run, task, message, undefined);
  }

  /**
   * A flowable with children ran past its `timeout` (counted from its start, or
   * its restart): everything still live under it is killed at once, its
   * errors and finally branches included (their jobs are killed, their workers
   * not waited for), and it fails with the timeout as its error, so its own
   * allowFailure, and the errors branch of what contains it, apply.
   */
  private onContainerTimeout(run: TaskRun, round: number): void {
    if (run.state !== 'RUNNING' || this.halt !== undefined || containerTimerRound(run) !== round) return;
    const task = this.task(run);
    this.flush();
    const descendants: TaskRun[] = [];
    this.live.forEach((_, id) => {
      const candidate = this.run(id);
      if (this.descendsFrom(candidate, run.id)) descendants.push(candidate);
    });
    for (const descendant of descendants) {
      if (descendant.progress !== undefined && (descendant.state === 'RUNNING' || descendant.state === 'KILLING')) {
        this.cancelContainerTimeout(descendant);
        this.moveRun(descendant.state === 'RUNNING' ? this.moveRun(descendant, 'KILLING') : descendant, 'KILLED');
      } else {
        this.killLeaf(descendant, false);
      }
    }
    this.afterPauseChange();
    const error = `Timed out after ${formatDuration(task.timeoutMs ?? 0)}`;
    this.childEnded(this.finishRun(this.run(run.id), task, 'FAILED', { error }));
  }

  private descendsFrom(run: TaskRun, ancestorId: string): boolean {
    for (let parentId = run.parentTaskRunId; parentId !== undefined; parentId = this.run(parentId).parentTaskRunId) {
      if (parentId === ancestorId) return true;
    }
    return false;
  }

  /** A flowable with children and a `timeout` that is still live at the end of its start gets its timer. */
  private scheduleContainerTimeout(run: TaskRun): void {
    const task = this.task(run);
    if (task.timeoutMs === undefined || run.progress === undefined || isTerminal(run.state)) return;
    this.scheduleTimer(run.id, 'task-timeout', containerTimerRound(run), this.now + task.timeoutMs);
  }

  /** Its timer goes when such a flowable ends; one started and ended by the same event never had one. */
  private cancelContainerTimeout(run: TaskRun): void {
    const exists = this.task(run).timeoutMs !== undefined && run.progress !== undefined && this.base.liveTaskRuns.has(run.id);
    this.cancelTimer(run.id, 'task-timeout', containerTimerRound(run), exists);
  }

  private onResume(taskRunId: string | undefined, inputs: JsonObject | undefined): void {
    if (this.state !== 'PAUSED' && this.state !== 'RUNNING') return;
    if (taskRunId !== undefined) {
      const run = this.find(taskRunId);
      if (run !== undefined && run.state === 'PAUSED') this.resumePaused(run, inputs ?? {});
      return;
    }
    for (const run of this.pausedRuns()) {
      const current = this.run(run.id);
      if (current.state === 'PAUSED') this.resumePaused(current, inputs ?? {});
    }
  }

  private onSubflowEnded(
    taskRunId: string,
    executionId: string,
    childState: ExecutionState,
    outputs: JsonObject | undefined,
    error: string | undefined,
    childContext: Readonly<Record<string, unknown>> | undefined,
  ): void {
    if (isFinalExecution(this.state)) return;
    const run = this.find(taskRunId);
    if (run === undefined || run.state !== 'RUNNING' || run.subflowExecutionId !== executionId) return;
    const task = this.task(run);
    if (task.kind !== 'Subflow' || !isFinalExecution(childState)) return;
    this.childEnded(subflowChildEnded(task, this, run, { executionId, childState, outputs, startError: error, childContext }));
  }

  // ---- Runnable tasks -----------------------------------------------------------------

  private dispatch(run: TaskRun, task: RunnableTask, keepQueue: string | undefined): TaskRun {
    const number = run.attempts.length + 1;
    const selector = task.workerSelector ?? this.flow.workerSelector;
    const submitted = this.moveRun(run, 'SUBMITTED', {
      selector,
      attempts: [...run.attempts, copyAttempt({ attempt: number, state: 'SUBMITTED', submittedAt: this.now }, {})],
    });
    this.emit({
      type: 'dispatch',
      taskRunId: run.id,
      attempt: number,
      task,
      ...(selector !== undefined ? { selector } : {}),
      ...(keepQueue !== undefined ? { workerQueueId: keepQueue } : {}),
    });
    if (task.timeoutMs !== undefined) this.scheduleTimer(run.id, 'task-timeout', number, this.now + task.timeoutMs);
    return submitted;
  }

  /** A runnable attempt failed: retry, allow the failure, or fail. */
  private failRunnable(run: TaskRun, task: RunnableTask, error: string, outputs: JsonObject | undefined, retries = true): void {
    const attempts = endAttempt(run, 'FAILED', this.now, { error, outputs });
    const retry = retries ? this.retryOf(run, task) : undefined;
    if (retry !== undefined && this.halt === undefined && retryAllowed(retry, run.attempts, this.now)) {
      if (retry.behavior === 'RETRY_FAILED_TASK') {
        let failed = this.moveRun(run, 'FAILED', { error, attempts });
        failed = this.moveRun(failed, 'RETRYING');
        const number = lastAttempt(failed)?.attempt ?? 1;
        this.scheduleTimer(run.id, 'retry', number, this.now + retryDelay(retry, realFailures(attempts), `${run.id}#${number}`));
        return;
      }
      if (this.executionRetryAllowed(retry)) {
        let failed = this.moveRun(run, 'FAILED', { error, attempts });
        failed = this.moveRun(failed, 'RETRYING');
        failed = this.moveRun(failed, 'RETRIED');
        this.startExecutionRetry(
          this.now + retryDelay(retry, this.base.retryAttempt, `${this.base.id}#${this.base.retryAttempt}`),
        );
        this.childEnded(failed);
        return;
      }
    }
    let ended: TaskRun;
    if (task.allowFailure) {
      if (run.state === 'SUBMITTED') run = this.moveRun(run, 'RUNNING');
      ended = this.moveRun(run, task.allowWarning ? 'SUCCESS' : 'WARNING', { error, attempts, outputs });
    } else {
      ended = this.moveRun(run, 'FAILED', { error, attempts, outputs });
    }
    this.childEnded(ended);
  }

  /**
   * Kestra's order: the task's own retry, else the nearest flowable above it
   * that has one, else the flow's `retry`.
   */
  private retryOf(run: TaskRun, task: Task): RetryPolicy | undefined {
    if (task.retry !== undefined) return task.retry;
    for (let parentId = run.parentTaskRunId; parentId !== undefined;) {
      const parent = this.run(parentId);
      const retry = this.task(parent).retry;
      if (retry !== undefined) return retry;
      parentId = parent.parentTaskRunId;
    }
    return this.flow.retry;
  }

  private executionRetryAllowed(retry: RetryPolicy): boolean {
    if (retry.maxAttempts !== undefined && this.base.retryAttempt >= retry.maxAttempts) return false;
    return true;
  }

  /** CREATE_NEW_EXECUTION: this execution stops (RETRYING -> RETRIED) and a new one is created later. */
  private startExecutionRetry(retryAt: Millis): void {
    if (this.state === 'PAUSED') this.moveExecution('RUNNING');
    this.moveExecution('RETRYING');
    this.halt = { reason: 'retry', retryAt };
    this.stopLiveTaskRuns();
  }

  // ---- Flowables -----------------------------------------------------------------------

  /** Start a freshly created task run. Returns its state afterwards (terminal if it ended at once). */
  private startRun(run: TaskRun, task: Task): TaskRunState {
    if (task.runIf !== undefined) {
      let proceed: boolean;
      try {
        proceed = renderCondition(task.runIf, this.context(run), this.renderOptions);
      } catch (error) {
        return this.failAtStart(run, task, `runIf: ${renderFailure(error)}`).state;
      }
      if (!proceed) return this.moveRun(run, 'SKIPPED').state;
    }
    if (isRunnable(task)) return this.dispatch(run, task, undefined).state;
    return this.startFlowable(run, task);
  }

  /** A flowable task run from CREATED or RESTARTED: move to RUNNING and run its body. */
  private startFlowable(run: TaskRun, task: Task): TaskRunState {
    const rules = rulesOf(task);
    if (rules === undefined) {
      return this.finishRun(this.moveRun(run, 'RUNNING'), task, 'FAILED', {
        error: `Task kind '${task.kind}' cannot run in the executor`,
      }).state;
    }
    if (!rules.hasChildren) {
      const running = this.moveRun(run, 'RUNNING');
      try {
        return rules.run(task, this, running);
      } catch (error) {
        return this.finishRun(this.run(run.id), task, 'FAILED', { error: renderFailure(error) }).state;
      }
    }
    let progress: ContainerProgress;
    try {
      progress = rules.start(task, this, run);
    } catch (error) {
      return this.failAtStart(run, task, renderFailure(error)).state;
    }
    const outputs = rules.startOutputs?.(progress);
    const running = this.moveRun(run, 'RUNNING', { progress, ...(outputs !== undefined ? { outputs } : {}) });
    if (outputs !== undefined) this.recordOutputs(running);
    if (rules.started !== undefined) {
      try {
        rules.started(task, this, running);
      } catch (error) {
        return this.finishRun(this.run(run.id), task, 'FAILED', { error: renderFailure(error) }).state;
      }
      if (this.run(run.id).state !== 'RUNNING') return this.run(run.id).state;
    }
    this.advance(running.id);
    const started = this.run(running.id);
    this.scheduleContainerTimeout(started);
    return started.state;
  }

  /**
   * A task run that cannot start (a template did not render): CREATED -> FAILED,
   * or through RUNNING when it was restarted or its failure is allowed (the
   * tables have no CREATED -> WARNING).
   */
  private failAtStart(run: TaskRun, task: Task, error: string): TaskRun {
    if (run.state === 'CREATED' && !failsAsWarning(task)) return this.moveRun(run, 'FAILED', { error });
    return this.finishRun(this.moveRun(run, 'RUNNING'), task, 'FAILED', { error });
  }

  /** Ends a flowable (or Subflow/Fail/Labels) task run from RUNNING or KILLING with allowFailure/allowWarning applied. */
  finishRun(run: TaskRun, task: Task, outcome: Outcome, patch: Partial<TaskRun> = {}): TaskRun {
    if (run.state === 'KILLING' || outcome === 'KILLED') {
      if (run.state !== 'KILLING') run = this.moveRun(run, 'KILLING');
      return this.moveRun(run, 'KILLED', patch);
    }
    let final: TaskRunState = outcome;
    if (final === 'FAILED' && failsAsWarning(task)) final = 'WARNING';
    if (final === 'WARNING' && task.allowWarning) final = 'SUCCESS';
    return this.moveRun(run, final, patch);
  }

  private resumePaused(run: TaskRun, inputs: JsonObject): void {
    const task = this.task(run);
    if (task.kind !== 'Pause') return;
    const resumed = resumePause(task, this, run, inputs);
    this.afterPauseChange();
    // A Pause with tasks runs them now; it ends when they do.
    if (isTerminal(resumed.state) || this.advance(resumed.id)) this.childEnded(this.run(resumed.id));
  }

  executionPaused(): void {
    if (this.state === 'RUNNING') this.moveExecution('PAUSED');
  }

  /** The execution is PAUSED while any task run is paused. */
  private afterPauseChange(): void {
    if (this.state === 'PAUSED' && this.pausedRuns().length === 0) this.moveExecution('RUNNING');
  }

  private pausedRuns(): TaskRun[] {
    // Walks the live task runs only (bounded by concurrency), never the finished ones.
    const paused: TaskRun[] = [];
    this.flush();
    this.live.forEach((_, id) => {
      const run = this.run(id);
      if (run.state === 'PAUSED') paused.push(run);
    });
    return paused;
  }

  /** The timers a flowable without children scheduled itself (a Pause's), when it ends another way. */
  private cancelOwnTimers(run: TaskRun, task: Task): void {
    rulesOf(task)?.cancelTimers?.(task, this, run);
  }

  // ---- Containers (the root and every flowable with children) ----------------------------

  private containerTask(containerId: string): Task | undefined {
    return containerId === ROOT ? undefined : this.task(this.run(containerId));
  }

  /** The rules of a container's kind; undefined for the root (the flow's own tasks, one lane). */
  private containerRules(task: Task | undefined): ContainerRules | undefined {
    if (task === undefined) return undefined;
    const rules = rulesOf(task);
    return rules?.hasChildren === true ? rules : undefined;
  }

  /** The lanes of the container's current branch: errors and finally run in one lane, the main branch as its kind says. */
  private lanesOf(containerId: string, progress: ContainerProgress): Lanes {
    const task = this.containerTask(containerId);
    if (progress.stage !== 'main') {
      const owner = task === undefined ? this.flow : (task as { errors?: readonly Task[]; finally?: readonly Task[] });
      return oneLane(progress.stage === 'errors' ? owner.errors : owner.finally);
    }
    if (task === undefined) return oneLane(this.flow.tasks);
    return this.containerRules(task)?.lanes(task, progress) ?? oneLane(NO_TASKS);
  }

  /** The rules that track lane states (Dag), while they apply: in the main branch only. */
  private laneStatesOf(containerId: string, progress: ContainerProgress): ContainerRules['laneStates'] {
    if (progress.stage !== 'main' || progress.dag === undefined) return undefined;
    return this.containerRules(this.containerTask(containerId))?.laneStates;
  }

  /** True when the container's errors or finally branch has something to run. */
  private hasBranch(containerId: string, branch: 'errors' | 'finally'): boolean {
    const task = this.containerTask(containerId);
    const owner = task === undefined ? this.flow : (task as { errors?: readonly Task[]; finally?: readonly Task[] });
    return (owner[branch] ?? NO_TASKS).some((t) => !t.disabled);
  }

  private stopping(containerId: string): boolean {
    if (this.halt !== undefined) return true;
    return containerId !== ROOT && this.run(containerId).state === 'KILLING';
  }

  /**
   * Runs a container forward as far as it goes now: starts lanes up to its
   * limit, moves main -> errors -> finally, ends it. Returns true when it ended
   * (its task run is terminal, or for the root the execution ended). Never
   * notifies the parent: callers do, so a child ending inside its own start
   * does not re-enter the parent's loop.
   */
  private advance(containerId: string): boolean {
    const task = this.containerTask(containerId);
    const rules = this.containerRules(task);
    for (;;) {
      let progress = this.progressOf(containerId);
      const stopping = this.stopping(containerId);
      if (rules?.idle?.(progress) === true && !stopping) return false;
      if (!stopping) {
        const lanes = this.lanesOf(containerId, progress);
        // The lanes started together are all created, even when one of them fails
        // at once (Kestra creates every free slot's task run in one go): a failure
        // only stops the lanes that would start later.
        let batch = progress.failed > 0 || progress.killed > 0 ? 0 : lanes.limit - progress.running;
        for (; batch > 0; batch--) {
          progress = this.progressOf(containerId);
          if (progress.killed > 0 || progress.running >= lanes.limit || this.stopping(containerId)) break;
          const lane = this.nextStartableLane(containerId, progress, lanes);
          if (lane === undefined) break;
          const end = this.runLane(containerId, progress.stage, lane, 0);
          this.laneEnded(containerId, lane, end, 0, true);
        }
        progress = this.progressOf(containerId);
        if (progress.running > 0) return false;
        if (
          progress.failed === 0 &&
          progress.killed === 0 &&
          this.nextStartableLane(containerId, progress, lanes) !== undefined
        ) {
          continue;
        }
      } else if (progress.running > 0) {
        return false;
      }
      if (stopping) return this.endContainer(containerId, 'KILLED');
      const outcome = stageOutcome(progress);
      const reset = { nextLane: 0, running: 0, failed: 0, warned: 0, killed: 0, dag: undefined };
      if (progress.stage === 'main') {
        if (task !== undefined && rules?.mainEnded !== undefined && outcome !== 'KILLED') {
          const said = rules.mainEnded(task, this, this.run(containerId), progress, outcome);
          if (said === 'wait') return false;
          if (said !== undefined) return this.endContainer(containerId, said.outcome, said.error);
        }
        if (outcome === 'KILLED') return this.endContainer(containerId, 'KILLED');
        if (outcome === 'FAILED' && this.hasBranch(containerId, 'errors')) {
          this.setProgress(containerId, {
            ...progress,
            ...reset,
            stage: 'errors',
            mainOutcome: outcome,
            mainLanes: progress.nextLane,
            mainDag: progress.dag,
          });
          continue;
        }
        if (this.hasBranch(containerId, 'finally')) {
          this.setProgress(containerId, {
            ...progress,
            ...reset,
            stage: 'finally',
            mainOutcome: outcome,
            mainLanes: progress.nextLane,
            mainDag: progress.dag,
          });
          continue;
        }
        return this.endContainer(containerId, outcome);
      }
      const mainOutcome = progress.mainOutcome ?? 'SUCCESS';
      if (progress.stage === 'errors') {
        if (this.hasBranch(containerId, 'finally')) {
          this.setProgress(containerId, { ...progress, ...reset, stage: 'finally' });
          continue;
        }
        return this.endContainer(containerId, mainOutcome);
      }
      // finally: its failure fails the container; otherwise the main outcome stands.
      if (outcome === 'FAILED' || outcome === 'KILLED') return this.endContainer(containerId, 'FAILED');
      return this.endContainer(containerId, mainOutcome === 'SUCCESS' && outcome === 'WARNING' ? 'WARNING' : mainOutcome);
    }
  }

  private nextStartableLane(containerId: string, progress: ContainerProgress, lanes: Lanes): number | undefined {
    const laneStates = this.laneStatesOf(containerId, progress);
    if (laneStates !== undefined) return laneStates.next(this.containerTask(containerId) as Task, progress);
    return progress.nextLane < lanes.count ? progress.nextLane : undefined;
  }

  /** Ends a container with `outcome`. The root ends the execution. */
  private endContainer(containerId: string, outcome: Outcome, error?: string): boolean {
    if (containerId === ROOT) {
      this.endExecution(outcome);
      return true;
    }
    const run = this.run(containerId);
    this.cancelContainerTimeout(run);
    this.finishRun(run, this.task(run), outcome, error !== undefined ? { error } : {});
    return true;
  }

  /**
   * Runs the tasks of one lane from `from` on, until one is live (returns
   * 'live') or the lane ends. Disabled tasks are ignored (no task run).
   */
  private runLane(containerId: string, stage: Stage, lane: number, from: number): LaneEnd {
    const progress = this.progressOf(containerId);
    const tasks = this.lanesOf(containerId, progress).tasksOf(lane);
    for (let position = from; position < tasks.length; position++) {
      const task = tasks[position] as Task;
      if (task.disabled) continue;
      const child = this.createRun(containerId, progress, task, stage, lane, position);
      const state = this.startRun(child, task);
      if (!isTerminal(state)) return 'live';
      const end = childEnd(state);
      if (state === 'WARNING') this.bump(containerId, 'warned');
      if (end !== 'done') return end;
    }
    return 'done';
  }

  private bump(containerId: string, counter: 'warned'): void {
    const progress = this.progressOf(containerId);
    this.setProgress(containerId, { ...progress, [counter]: progress[counter] + 1 });
  }

  /**
   * Books a lane in its container's counters, in one write: its start
   * (`started`: the lane is taken), whether it is now running ('live') or how it
   * ended, and `runningDelta` (-1 when a running lane ended).
   */
  private laneEnded(containerId: string, lane: number, end: LaneEnd, runningDelta: number, started: boolean): void {
    const progress = this.progressOf(containerId);
    const laneStates = this.laneStatesOf(containerId, progress);
    const dag =
      laneStates !== undefined && progress.dag !== undefined ? laneStates.record(progress.dag, lane, end) : progress.dag;
    this.setProgress(
      containerId,
      withCounters(
        progress,
        started && laneStates === undefined ? lane + 1 : progress.nextLane,
        progress.running + runningDelta + (end === 'live' ? 1 : 0),
        progress.failed + (end === 'failed' ? 1 : 0),
        progress.killed + (end === 'killed' ? 1 : 0),
        dag,
      ),
    );
  }

  /**
   * A child reached a terminal state through an event: continue its lane or
   * book the lane's end, then advance the container; repeat upwards while
   * containers end.
   */
  private childEnded(child: TaskRun): void {
    let current = child;
    for (;;) {
      const containerId = current.parentTaskRunId ?? ROOT;
      if (containerId !== ROOT && isTerminal(this.run(containerId).state)) return;
      if (containerId === ROOT && isFinalExecution(this.state)) return;
      if (current.state === 'WARNING') this.bump(containerId, 'warned');
      let end = childEnd(current.state);
      if (end === 'done' && !this.stopping(containerId)) {
        end = this.runLane(containerId, current.stage, current.lane, current.position + 1);
        if (end === 'live') return;
      }
      // The lane ended: one less running.
      this.laneEnded(containerId, current.lane, end, -1, false);
      if (!this.advance(containerId) || containerId === ROOT) return;
      current = this.run(containerId);
    }
  }

  /**
   * The id of a container's child: `<container>:<task>`, then its lane's value
   * index (`@<lane>`, ForEach) and its loop iteration (`~<n>`, WaitFor) in the
   * main branch, or the restart round (`~r<n>`) in errors/finally.
   */
  private childId(parent: TaskRun | undefined, progress: ContainerProgress, task: Task, stage: Stage, lane: number): string {
    let id = `${parent?.id ?? this.base.id}:${task.id}`;
    if (stage === 'main') {
      const rules = this.containerRules(parent === undefined ? undefined : this.task(parent));
      if (rules?.laneValue !== undefined) id += `@${lane}`;
      const iteration = rules?.iteration?.(progress);
      if (iteration !== undefined) id += `~${iteration}`;
    } else if (progress.round > 0) {
      id += `~r${progress.round}`;
    }
    return id;
  }

  private createRun(
    containerId: string,
    progress: ContainerProgress,
    task: Task,
    stage: Stage,
    lane: number,
    position: number,
  ): TaskRun {
    const parent = containerId === ROOT ? undefined : this.run(containerId);
    const rules = stage === 'main' ? this.containerRules(parent === undefined ? undefined : this.task(parent)) : undefined;
    const value = rules?.laneValue?.(progress, lane);
    const iteration = rules?.iteration?.(progress);
    const id = this.childId(parent, progress, task, stage, lane);
    if (this.find(id) !== undefined) throw new Error(`Task run ${id} already exists`);
    const forEachValues = value !== undefined ? [...(parent?.forEachValues ?? []), value] : parent?.forEachValues;
    // Not stored yet: every start path moves it out of CREATED at once, and that write stores it.
    return {
      id,
      executionId: this.base.id,
      taskId: task.id,
      parentTaskRunId: parent?.id,
      seq: this.nextSeq++,
      stage,
      lane,
      position,
      value,
      forEachValues: forEachValues !== undefined && forEachValues.length > 0 ? forEachValues : undefined,
      iteration,
      state: 'CREATED',
      histories: [{ state: 'CREATED', at: this.now }],
      attempts: [],
      outputs: undefined,
      error: undefined,
      workerQueueId: undefined,
      selector: undefined,
      waitingReason: undefined,
      dispatchReason: undefined,
      progress: undefined,
      subflowExecutionId: undefined,
    };
  }

  // ---- Restart -----------------------------------------------------------------------

  /**
   * Re-runs the failed, killed and cancelled task runs of a container's main
   * branch (recursively) and rewinds it to its main stage. Visits only the
   * containers on failed paths; a restart is rare, so walking a container's
   * children by id is fine here.
   *
   * A replay (`mode` 'replay') re-runs the RESTARTED path replay.ts left (the
   * chosen task run and the containers above it) and nothing else: a failed
   * task run off the path stays as it ended and counts so.
   */
  private restartContainer(containerId: string, mode: 'restart' | 'replay'): void {
    let progress = this.progressOf(containerId);
    const mainProgress: ContainerProgress = { ...progress, stage: 'main', dag: progress.mainDag ?? progress.dag };
    const lanes = this.lanesOf(containerId, mainProgress);
    const laneStates = this.laneStatesOf(containerId, mainProgress);
    const lanesStarted = progress.stage === 'main' ? progress.nextLane : (progress.mainLanes ?? lanes.count);
    let dag = mainProgress.dag;
    let running = 0;
    let warned = 0;
    let failed = 0;
    progress = {
      ...mainProgress,
      round: progress.round + 1,
      nextLane: lanesStarted,
      running: 0,
      failed: 0,
      warned: 0,
      killed: 0,
      // Every restarted container stores it (only a WaitFor reads it): the stored form stays as it always was.
      waiting: false,
      mainOutcome: undefined,
      mainLanes: undefined,
      mainDag: undefined,
      ...(dag !== undefined ? { dag } : {}),
    };
    this.setProgress(containerId, progress);
    const parent = containerId === ROOT ? undefined : this.run(containerId);
    const laneCount = dag !== undefined ? dag.length : lanesStarted;
    for (let lane = 0; lane < laneCount; lane++) {
      if (dag !== undefined && laneStates?.neverStarted(dag, lane) === true) continue;
      const tasks = lanes.tasksOf(lane);
      for (let position = 0; position < tasks.length; position++) {
        const task = tasks[position] as Task;
        const child = this.find(this.childId(parent, progress, task, 'main', lane));
        if (child === undefined) continue;
        if (child.state !== 'RESTARTED') {
          if (child.state === 'WARNING') warned++;
          if (child.state !== 'FAILED' && child.state !== 'KILLED' && child.state !== 'CANCELLED') continue;
          if (mode === 'replay') {
            failed++;
            if (dag !== undefined && laneStates !== undefined) dag = laneStates.record(dag, lane, childEnd(child.state));
            break;
          }
        }
        const state = this.restartRun(child, task, mode);
        let end: LaneEnd = isTerminal(state) ? childEnd(state) : 'live';
        if (state === 'WARNING') warned++;
        if (end === 'done') end = this.runLane(containerId, 'main', lane, position + 1);
        if (end === 'live') running++;
        if (end === 'failed' || end === 'killed') failed++;
        if (dag !== undefined && laneStates !== undefined) dag = laneStates.record(dag, lane, end);
        break;
      }
    }
    const current = this.progressOf(containerId);
    this.setProgress(containerId, {
      ...current,
      running,
      failed,
      warned: warned + current.warned,
      ...(dag !== undefined ? { dag } : {}),
    });
  }

  private restartRun(run: TaskRun, task: Task, mode: 'restart' | 'replay'): TaskRunState {
    const restarted = run.state === 'RESTARTED' ? run : this.moveRun(run, 'RESTARTED', { error: undefined });
    // Like a retry, a restarted job keeps the queue it had; one that never reached a queue is routed afresh.
    if (isRunnable(task)) return this.dispatch(restarted, task, restarted.workerQueueId).state;
    // A Pause with tasks that never got its resume pauses again.
    if (restarted.progress === undefined || (task.kind === 'Pause' && restarted.progress.waiting === true)) {
      return this.startFlowable(restarted, task);
    }
    const running = this.moveRun(restarted, 'RUNNING');
    this.restartContainer(running.id, mode);
    this.advance(running.id);
    const started = this.run(running.id);
    this.scheduleContainerTimeout(started);
    return started.state;
  }
}

// ---- Pure helpers ----------------------------------------------------------------------

/** A container's timeout timer is numbered by its round: 1 from its start, one more per restart. */
function containerTimerRound(run: TaskRun): number {
  return (run.progress?.round ?? 0) + 1;
}

export function isFinalExecution(state: ExecutionState): boolean {
  return isTerminal(state);
}

/**
 * Whether a `restart-requested` restarts `execution`: it must be FAILED, KILLED
 * or WARNING, and still at `expectedVersion` when the requester named one (a late
 * duplicate of a restart changes nothing). The executor asks before it takes a
 * concurrency slot for the restart.
 */
export function acceptsRestart(execution: Pick<Execution, 'state' | 'version'>, expectedVersion?: number): boolean {
  if (execution.state !== 'FAILED' && execution.state !== 'KILLED' && execution.state !== 'WARNING') return false;
  return expectedVersion === undefined || expectedVersion === execution.version;
}

/** A failure of the task ends it WARNING: its allowFailure, or its kind's rule (AllowFailure). */
function failsAsWarning(task: Task): boolean {
  if (task.allowFailure) return true;
  const rules = rulesOf(task);
  return rules?.hasChildren === true && rules.failsAsWarning === true;
}

function coerceOutput(value: unknown, type: string): JsonValue {
  switch (type) {
    case 'INT':
    case 'FLOAT': {
      const number = Number(value);
      return Number.isFinite(number) ? number : String(value);
    }
    case 'BOOLEAN':
      return value === true || value === 'true';
    case 'JSON':
    case 'ARRAY':
      if (typeof value === 'string') {
        try {
          return JSON.parse(value) as JsonValue;
        } catch {
          return value;
        }
      }
      return value as JsonValue;
    default:
      return typeof value === 'string' || value === null || isJsonObject(value) ? (value as JsonValue) : JSON.stringify(value);
  }
}
