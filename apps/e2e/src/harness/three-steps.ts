import { stateOf, taskRunsOf, type Execution } from './api-types';

// The flow of the executor kill -9 specs: a Log, a short Sleep and a Return, so an
// execution has events before, during and after a task on a worker.
export const THREE_STEPS_FLOW_ID = 'three-steps';
export const THREE_STEPS_TASK_IDS = ['announce', 'linger', 'answer'] as const;

export function threeStepsFlow(namespace: string): string {
  return `
id: ${THREE_STEPS_FLOW_ID}
namespace: ${namespace}
tasks:
  - id: announce
    type: io.kestra.plugin.core.log.Log
    message: "starting {{ execution.id }}"
  - id: linger
    type: io.kestra.plugin.core.flow.Sleep
    duration: PT0.2S
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "done {{ execution.id }}"
`;
}

/** What is wrong with one ended execution of the flow, if anything: not SUCCESS, a task run missing, run twice or not SUCCESS. */
export function problemsOfThreeSteps(execution: Execution): string[] {
  const problems: string[] = [];
  if (stateOf(execution) !== 'SUCCESS') problems.push(`ended ${stateOf(execution)}`);
  for (const taskId of THREE_STEPS_TASK_IDS) {
    const runs = taskRunsOf(execution, taskId);
    if (runs.length !== 1) problems.push(`${runs.length} task runs of '${taskId}'`);
    for (const run of runs) {
      const attempts = (run.attempts ?? []).map((attempt) => stateOf(attempt));
      if (stateOf(run) !== 'SUCCESS' || attempts.length !== 1 || attempts[0] !== 'SUCCESS') {
        problems.push(`'${taskId}' ${stateOf(run)} with attempts [${attempts.join(', ')}]`);
      }
    }
  }
  return problems;
}
