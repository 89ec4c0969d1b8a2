import { RUNNABLE_TASK_KINDS, type RunnableTask } from '@lanner/model';
import { createTaskRunners, type TaskRunnerRegistry } from '@lanner/plugins';
import type { WorkerJobMessage } from '@lanner/frames';

/**
 * The task kinds the system worker runs: the platform's own work, which touches
 * nothing outside Lanner. A kind that runs user code (scripts), writes a working
 * directory of files or reaches user infrastructure (HTTP) belongs on a worker:
 * the executor is no place for it (ARCHITECTURE.md: only workers run user code).
 */
export const SYSTEM_WORKER_KINDS: ReadonlySet<RunnableTask['kind']> = new Set<RunnableTask['kind']>([
  'Log',
  'Return',
  'OutputValues',
  'Sleep',
  'Fail',
  'StorageWrite',
  'StorageSize',
  'StorageDelete',
  'StorageConcat',
  'StorageSplit',
  'PurgeCurrentExecutionFiles',
]);

/** Why a task of this kind does not run on the system worker (the task run fails with it). */
export function notASystemTaskMessage(taskType: string): string {
  return `task type '${taskType}' runs user code or reaches user infrastructure, which the in-process system worker never does; it runs only ${[...SYSTEM_WORKER_KINDS].join(', ')}: move the flow out of the 'system' namespace so a worker runs it`;
}

/** The worker's implementations, with every kind outside SYSTEM_WORKER_KINDS refused. */
export function systemWorkerRegistry(): TaskRunnerRegistry {
  const all = createTaskRunners();
  const refuse = {
    run: async (task: RunnableTask) => {
      throw new Error(notASystemTaskMessage(task.type));
    },
  };
  return Object.fromEntries(
    Object.entries(all).map(([kind, runner]) => [kind, SYSTEM_WORKER_KINDS.has(kind as RunnableTask['kind']) ? runner : refuse]),
  ) as unknown as TaskRunnerRegistry;
}

export type SystemTask = { readonly ok: true; readonly task: RunnableTask } | { readonly ok: false; readonly reason: string };

/**
 * The task of a `system` job, as the executor rendered it: only the envelope is
 * checked here (an id, a kind the system worker runs); each implementation
 * checks its own properties. The job's timeout, when set, is the attempt's.
 */
export function systemTaskOf(job: WorkerJobMessage['payload']): SystemTask {
  const definition = job.taskDefinition;
  if (typeof definition['id'] !== 'string' || definition['id'] === '') {
    return { ok: false, reason: "the job's task definition has no id" };
  }
  const kind = definition['kind'];
  if (typeof kind !== 'string' || !RUNNABLE_TASK_KINDS.has(kind)) {
    return { ok: false, reason: `task type '${job.taskType}' cannot run on a worker` };
  }
  if (!SYSTEM_WORKER_KINDS.has(kind as RunnableTask['kind'])) return { ok: false, reason: notASystemTaskMessage(job.taskType) };
  const task = job.timeoutMs === undefined ? definition : { ...definition, timeoutMs: job.timeoutMs };
  // The envelope is checked above; the kind-specific properties are checked by the task's implementation.
  return { ok: true, task: task as unknown as RunnableTask };
}
