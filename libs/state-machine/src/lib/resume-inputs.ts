// What the API asks before it sends a resume: do its inputs fit the Pause tasks
// that wait? The same rule the state machine applies when the resume arrives.
import type { Flow, FlowProblem } from '@lanner/model';
import { taskById } from './flow-index';
import { pauseResumeInputs } from './flowables';
import type { JsonObject } from './types';

/** Every problem of `inputs` against the `onResume` of the paused tasks named (none: the resume may go). */
export function resumeInputProblems(flow: Flow, pausedTaskIds: readonly string[], inputs: JsonObject): FlowProblem[] {
  const problems: FlowProblem[] = [];
  for (const taskId of pausedTaskIds) {
    let task;
    try {
      task = taskById(flow, taskId);
    } catch {
      continue;
    }
    if (task.kind !== 'Pause') continue;
    const checked = pauseResumeInputs(task, inputs);
    if (!checked.ok) problems.push(...checked.problems);
  }
  return problems;
}
