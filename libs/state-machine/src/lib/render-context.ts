import type { Flow } from '@lanner/model';
import { buildContext } from './context';
import type { RenderContext } from './render';
import type { Execution, RenderEnvironment } from './types';

/**
 * The render context the executor uses to render a dispatched task late (just
 * before the job is produced): `inputs`, `vars`, `outputs`, `taskrun`, `parents`, ...
 */
export function renderContextFor(
  flow: Flow,
  execution: Execution,
  taskRunId?: string,
  environment: RenderEnvironment = {},
): RenderContext {
  const run = taskRunId === undefined ? undefined : execution.taskRuns.get(taskRunId);
  return buildContext(
    {
      flow,
      execution,
      labels: execution.labels,
      taskOutputs: execution.taskOutputs,
      ...(environment.envs !== undefined ? { envs: environment.envs } : {}),
      ...(environment.globals !== undefined ? { globals: environment.globals } : {}),
      eachTaskRun: (visit) => execution.taskRuns.forEach((taskRun) => visit(taskRun)),
      taskRunById: (id) => execution.taskRuns.get(id),
    },
    run,
  );
}
