// Shared by the specs of this folder: read a flow and get either the model or
// the problems as a user sees them.

import type { Flow, FlowProblem, Task } from './flow.types';
import { formatProblem, parseFlow } from './parse-flow';

export function readFlow(source: string): Flow {
  const result = parseFlow(source);
  if (!result.ok) throw new Error(`expected a valid flow, got:\n${result.problems.map(formatProblem).join('\n')}`);
  return result.flow;
}

export function problemsOf(source: string): FlowProblem[] {
  const result = parseFlow(source);
  expect(result.ok).toBe(false);
  return result.ok ? [] : [...result.problems];
}

/** Problems as `path: message` lines (without positions), for exact assertions. */
export function messagesOf(source: string): string[] {
  return problemsOf(source).map((problem) => `${problem.path}: ${problem.message}`);
}

/** A flow with the given YAML under `tasks:` (each line already indented by two). */
export function flowWithTasks(tasks: string): string {
  return `id: f\nnamespace: company.team\ntasks:\n${tasks}`;
}

/** The single task of a flow whose `tasks:` is `tasks`. */
export function onlyTask(tasks: string): Task {
  const flow = readFlow(flowWithTasks(tasks));
  expect(flow.tasks).toHaveLength(1);
  return flow.tasks[0];
}
