import fc from 'fast-check';
import type { Flow, RetryPolicy, Task } from '@lanner/model';
import {
  type Execution,
  type ExecutionEvent,
  createExecution,
  isAllowedExecutionTransition,
  isAllowedTaskRunTransition,
  isTerminal,
  listTaskRuns,
  next,
} from '../index';
import { allowFailure, flow, forEach, ifTask, log, parallel, sequential } from '../test-support/flows';

// ---- Generated flows: random trees of Sequential / Parallel / If / ForEach / AllowFailure / runnable tasks.
type Shape =
  | { kind: 'leaf'; allowFailure: boolean; retry: number; timeout: boolean; runIf: number }
  | { kind: 'seq' | 'par'; children: Shape[]; concurrency: number; allowFailure: boolean; timeout: boolean }
  | { kind: 'if'; condition: number; then: Shape[]; else: Shape[]; allowFailure: boolean }
  | { kind: 'allow'; children: Shape[] }
  | { kind: 'each'; values: number; limit: number; children: Shape[] };

const shape: fc.Arbitrary<Shape> = fc.letrec<{ node: Shape }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('leaf' as const),
      allowFailure: fc.boolean(),
      retry: fc.integer({ min: 0, max: 4 }),
      timeout: fc.boolean(),
      runIf: fc.integer({ min: 0, max: 5 }),
    }),
    fc.record({
      kind: fc.constantFrom('seq' as const, 'par' as const),
      children: fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
      concurrency: fc.integer({ min: 0, max: 2 }),
      allowFailure: fc.boolean(),
      // A flowable's timeout fires at any point of its run, as its timer event is delivered in random order.
      timeout: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant('if' as const),
      condition: fc.integer({ min: 0, max: 2 }),
      then: fc.array(tie('node'), { maxLength: 2 }),
      else: fc.array(tie('node'), { maxLength: 2 }),
      allowFailure: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('allow' as const), children: fc.array(tie('node'), { minLength: 1, maxLength: 2 }) }),
    fc.record({
      kind: fc.constant('each' as const),
      values: fc.integer({ min: 0, max: 3 }),
      limit: fc.integer({ min: 0, max: 2 }),
      children: fc.array(tie('node'), { minLength: 1, maxLength: 2 }),
    }),
  ),
})).node;

function toFlow(shapes: Shape[], withErrors: boolean): Flow {
  let counter = 0;
  const build = (node: Shape): Task => {
    const id = `t${counter++}`;
    switch (node.kind) {
      case 'leaf': {
        // 0: none, 1-2: RETRY_FAILED_TASK with 2-3 attempts, 3: CREATE_NEW_EXECUTION, 4: none.
        const retry: RetryPolicy | undefined =
          node.retry === 1 || node.retry === 2
            ? {
                type: 'constant',
                intervalMs: 10,
                maxAttempts: node.retry + 1,
                behavior: 'RETRY_FAILED_TASK',
                warningOnRetry: false,
              }
            : node.retry === 3
              ? { type: 'constant', intervalMs: 10, maxAttempts: 2, behavior: 'CREATE_NEW_EXECUTION', warningOnRetry: false }
              : undefined;
        // runIf: mostly absent; sometimes false, sometimes a template that cannot render.
        const runIf = node.runIf === 4 ? 'false' : node.runIf === 5 ? '{{ inputs.nope }}' : undefined;
        return log(id, {
          allowFailure: node.allowFailure,
          ...(retry ? { retry } : {}),
          ...(node.timeout ? { timeoutMs: 5000 } : {}),
          ...(runIf !== undefined ? { runIf } : {}),
        });
      }
      case 'seq':
        return sequential(id, node.children.map(build), {
          allowFailure: node.allowFailure,
          ...(node.timeout ? { timeoutMs: 5000 } : {}),
        });
      case 'par':
        return parallel(id, node.children.map(build), node.concurrency, {
          allowFailure: node.allowFailure,
          ...(node.timeout ? { timeoutMs: 5000 } : {}),
        });
      case 'if': {
        const condition = ['true', 'false', '{{ inputs.nope }}'][node.condition] as string;
        return { ...ifTask(id, condition, node.then.map(build), node.else.map(build)), allowFailure: node.allowFailure };
      }
      case 'allow':
        return allowFailure(id, node.children.map(build));
      case 'each':
        return forEach(
          id,
          Array.from({ length: node.values }, (_, i) => `v${i}`),
          node.children.map(build),
          node.limit,
        );
    }
  };
  const tasks = shapes.map(build);
  return flow(tasks, withErrors ? { errors: [log(`t${counter++}`)], finally: [log(`t${counter++}`)] } : {});
}

const flows = fc
  .tuple(fc.array(shape, { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(([shapes, withErrors]) => toFlow(shapes, withErrors));

// ---- A driver that delivers pending events in a random order, with random worker answers.
type Answer = 'SUCCESS' | 'WARNING' | 'FAILED' | 'KILLED' | 'LOST' | 'SILENT';
const ANSWERS: Answer[] = ['SUCCESS', 'SUCCESS', 'SUCCESS', 'WARNING', 'FAILED', 'FAILED', 'KILLED', 'LOST', 'SILENT'];

interface Run {
  readonly final: Execution;
  readonly steps: number;
}

function drive(
  tree: Flow,
  choices: number[],
  killAt: number | undefined,
  check: (before: Execution, event: ExecutionEvent, after: Execution) => void,
  from?: Execution,
): Run {
  let execution = from ?? createExecution(tree, { id: 'p', tenant: 't' }, 0);
  const pending: ExecutionEvent[] = [
    from === undefined ? { type: 'created' } : { type: 'restart-requested', expectedVersion: from.version },
  ];
  const applied: ExecutionEvent[] = [];
  let step = 0;
  let replayed = false;
  const choose = (n: number): number => (choices[step % choices.length] ?? 0) % n;
  while (pending.length > 0 && step < 5000) {
    step++;
    let event: ExecutionEvent;
    if (killAt !== undefined && step === killAt) event = { type: 'kill-requested' };
    else if (!replayed && applied.length > 0 && choose(7) === 0)
      event = applied[(choices[(step + 1) % choices.length] ?? 0) % applied.length] as ExecutionEvent; // a redelivery (never two in a row, so the queue drains)
    else event = pending.splice(choose(pending.length), 1)[0] as ExecutionEvent;
    const before = execution;
    const result = next(tree, execution, event, (from === undefined ? 0 : 10_000_000) + step * 1000);
    execution = result.execution;
    check(before, event, execution);
    replayed = applied.includes(event);
    applied.push(event);
    for (const action of result.actions) {
      if (action.type === 'dispatch') {
        const job = { taskRunId: action.taskRunId, attempt: action.attempt };
        pending.push({ type: 'task-run-started', ...job, workerId: 'w', workerQueueId: 'q' });
        // A SILENT worker never answers: only a timeout or a kill ends its job.
        let answer = ANSWERS[choose(ANSWERS.length)] as Answer;
        if (answer === 'SILENT' && !action.task.timeoutMs) answer = 'SUCCESS';
        if (answer === 'LOST' && action.attempt > 2) answer = 'SUCCESS';
        if (answer === 'LOST') pending.push({ type: 'worker-lost', ...job });
        else if (answer !== 'SILENT')
          pending.push({ type: 'task-run-result', ...job, state: answer, ...(answer === 'FAILED' ? { error: 'x' } : {}) });
      } else if (action.type === 'schedule-timer') {
        pending.push({ type: 'timer-fired', timer: action.timer });
      } else if (action.type === 'kill-job') {
        pending.push({ type: 'task-run-result', taskRunId: action.taskRunId, attempt: action.attempt, state: 'KILLED' });
      }
    }
  }
  return { final: execution, steps: step };
}

function checkTransitions(execution: Execution): void {
  const states = execution.histories.map((change) => change.state);
  for (let i = 1; i < states.length; i++) {
    expect(isAllowedExecutionTransition(states[i - 1] as never, states[i] as never)).toBe(true);
  }
  for (const run of listTaskRuns(execution)) {
    for (let i = 1; i < run.histories.length; i++) {
      const from = run.histories[i - 1]?.state;
      const to = run.histories[i]?.state;
      if (!isAllowedTaskRunTransition(from as never, to as never)) throw new Error(`${run.id}: ${from} -> ${to}`);
    }
  }
}

const noop = (): void => undefined;
const settings = { numRuns: Number(process.env['SM_PROPERTY_RUNS'] ?? 150) };

describe('state machine invariants over generated flows', () => {
  it('every task run and the execution reach a terminal state once every job has answered', () => {
    fc.assert(
      fc.property(flows, fc.array(fc.nat(), { minLength: 1, maxLength: 64 }), (tree, choices) => {
        const { final } = drive(tree, choices, undefined, noop);
        expect(isTerminal(final.state)).toBe(true);
        for (const run of listTaskRuns(final)) expect(isTerminal(run.state)).toBe(true);
        expect(final.liveTaskRuns.size).toBe(0);
      }),
      settings,
    );
  });

  it('only table transitions occur, with or without a kill', () => {
    fc.assert(
      fc.property(
        flows,
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        fc.option(fc.integer({ min: 2, max: 30 }), { nil: undefined }),
        (tree, choices, killAt) => {
          const { final } = drive(tree, choices, killAt, noop);
          checkTransitions(final);
          expect(isTerminal(final.state)).toBe(true);
        },
      ),
      settings,
    );
  });

  it('terminal states are absorbing: a terminal task run or execution never changes again', () => {
    fc.assert(
      fc.property(
        flows,
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        fc.option(fc.integer({ min: 2, max: 30 }), { nil: undefined }),
        (tree, choices, killAt) => {
          drive(tree, choices, killAt, (before, _event, after) => {
            if (isTerminal(before.state)) expect(after).toBe(before);
            before.taskRuns.forEach((run) => {
              if (isTerminal(run.state)) expect(after.taskRuns.get(run.id)).toBe(run);
            });
          });
        },
      ),
      settings,
    );
  });

  it('replaying any event is a no-op', () => {
    fc.assert(
      fc.property(
        flows,
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        fc.option(fc.integer({ min: 2, max: 30 }), { nil: undefined }),
        (tree, choices, killAt) => {
          drive(tree, choices, killAt, (_before, event, after) => {
            const replay = next(tree, after, event, Number.MAX_SAFE_INTEGER);
            expect(replay.execution).toBe(after);
            expect(replay.actions).toEqual([]);
          });
        },
      ),
      settings,
    );
  });

  it('a restart of a failed or killed execution runs to a terminal state again, through table transitions only', () => {
    fc.assert(
      fc.property(
        flows,
        fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
        fc.option(fc.integer({ min: 2, max: 30 }), { nil: undefined }),
        (tree, choices, killAt) => {
          const first = drive(tree, choices, killAt, noop).final;
          if (first.state !== 'FAILED' && first.state !== 'KILLED') return;
          const again = drive(tree, choices.slice().reverse(), undefined, noop, first).final;
          expect(again.histories.map((change) => change.state)).toContain('RESTARTED');
          expect(isTerminal(again.state)).toBe(true);
          for (const run of listTaskRuns(again)) expect(isTerminal(run.state)).toBe(true);
          checkTransitions(again);
        },
      ),
      settings,
    );
  });
});
