// Typed flow builders for the specs (the parser has its own tests; these keep
// scenario specs short). Not exported from the library.
import type { Flow, FlowOutput, RetryPolicy, Task, TaskCommon } from '@lanner/model';
import type { Execution, TaskRun } from '../lib/types';
import { listTaskRuns } from '../lib/execution';

type Common = Partial<Omit<TaskCommon, 'id' | 'type'>>;

const common = (id: string, type: string, extra: Common = {}): TaskCommon => ({
  id,
  type,
  disabled: false,
  allowFailure: false,
  allowWarning: false,
  ...extra,
});

export const log = (id: string, extra: Common = {}): Task => ({
  ...common(id, 'io.kestra.plugin.core.log.Log', extra),
  kind: 'Log',
  message: id,
  level: 'INFO',
});

export const outputValues = (id: string, values: Record<string, string>, extra: Common = {}): Task => ({
  ...common(id, 'io.kestra.plugin.core.output.OutputValues', extra),
  kind: 'OutputValues',
  values,
});

export const sequential = (id: string, tasks: Task[], extra: Common & { errors?: Task[]; finally?: Task[] } = {}): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.Sequential', extra),
  kind: 'Sequential',
  tasks,
});

export const parallel = (id: string, tasks: Task[], concurrency = 0, extra: Common & { errors?: Task[] } = {}): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.Parallel', extra),
  kind: 'Parallel',
  tasks,
  concurrency,
});

export const ifTask = (id: string, condition: string, then: Task[], otherwise?: Task[]): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.If'),
  kind: 'If',
  condition,
  then,
  ...(otherwise !== undefined ? { else: otherwise } : {}),
});

export const switchTask = (id: string, value: string, cases: Record<string, Task[]>, defaults?: Task[]): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.Switch'),
  kind: 'Switch',
  value,
  cases,
  ...(defaults !== undefined ? { defaults } : {}),
});

export const forEach = (id: string, values: unknown, tasks: Task[], concurrencyLimit = 1, extra: Common = {}): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.ForEach', extra),
  kind: 'ForEach',
  values: values as string[],
  concurrencyLimit,
  tasks,
});

export const dag = (id: string, tasks: { task: Task; dependsOn: string[] }[], concurrency = 0): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.Dag'),
  kind: 'Dag',
  tasks,
  concurrency,
});

export const allowFailure = (id: string, tasks: Task[], extra: { errors?: Task[] } = {}): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.AllowFailure'),
  kind: 'AllowFailure',
  tasks,
  ...extra,
});

export const waitFor = (
  id: string,
  condition: string,
  tasks: Task[],
  checkFrequency: { intervalMs: number; maxIterations?: number; maxDurationMs?: number },
  failOnMaxReached = false,
): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.WaitFor'),
  kind: 'WaitFor',
  condition,
  tasks,
  checkFrequency,
  failOnMaxReached,
});

export const pause = (id: string, extra: { pauseDurationMs?: number; pauseTimeoutMs?: number } & Common = {}): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.Pause', extra),
  kind: 'Pause',
  ...(extra.pauseDurationMs !== undefined ? { pauseDurationMs: extra.pauseDurationMs } : {}),
  ...(extra.pauseTimeoutMs !== undefined ? { pauseTimeoutMs: extra.pauseTimeoutMs } : {}),
});

export const subflow = (
  id: string,
  flowId: string,
  extra: { wait?: boolean; transmitFailed?: boolean; inputs?: Record<string, string> } = {},
): Task => ({
  ...common(id, 'io.kestra.plugin.core.flow.Subflow'),
  kind: 'Subflow',
  namespace: 'company.team',
  flowId,
  wait: extra.wait ?? true,
  transmitFailed: extra.transmitFailed ?? true,
  ...(extra.inputs !== undefined ? { inputs: extra.inputs } : {}),
});

export const failTask = (id: string, errorMessage: string, condition?: string): Task => ({
  ...common(id, 'io.kestra.plugin.core.execution.Fail'),
  kind: 'Fail',
  errorMessage,
  ...(condition !== undefined ? { condition } : {}),
});

export const labelsTask = (id: string, labels: Record<string, string> | string): Task => ({
  ...common(id, 'io.kestra.plugin.core.execution.Labels'),
  kind: 'Labels',
  labels,
});

export const constantRetry = (intervalMs: number, maxAttempts: number, extra: Partial<RetryPolicy> = {}): RetryPolicy =>
  ({ type: 'constant', intervalMs, maxAttempts, behavior: 'RETRY_FAILED_TASK', warningOnRetry: false, ...extra }) as RetryPolicy;

export function flow(
  tasks: Task[],
  extra: Partial<Pick<Flow, 'errors' | 'finally' | 'concurrency' | 'inputs' | 'variables' | 'workerSelector'>> & {
    outputs?: FlowOutput[];
  } = {},
): Flow {
  return {
    id: 'scenario',
    namespace: 'company.team',
    labels: {},
    inputs: [],
    variables: {},
    tasks,
    errors: [],
    finally: [],
    outputs: [],
    triggers: [],
    disabled: false,
    ...extra,
  };
}

/** `taskId -> state` (the last task run of each task id wins; use `runsOf` for ForEach). */
export function statesByTask(execution: Execution): Record<string, string> {
  const out: Record<string, string> = {};
  for (const run of listTaskRuns(execution)) out[run.taskId] = run.state;
  return out;
}

export function runsOf(execution: Execution, taskId: string): TaskRun[] {
  return listTaskRuns(execution).filter((run) => run.taskId === taskId);
}

export function historyOf(run: TaskRun | undefined): string {
  return (run?.histories ?? []).map((change) => change.state).join('>');
}
