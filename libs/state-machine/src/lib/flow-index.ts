// Task lookups by id over a parsed flow, built once per flow object.
import { type Flow, RUNNABLE_TASK_KINDS, type RunnableTask, type Task } from '@lanner/model';
import { rulesOf } from './flowables';

export function isRunnable(task: Task): task is RunnableTask {
  return RUNNABLE_TASK_KINDS.has(task.kind);
}

/** A task run names a task id the flow does not have (the flow changed under a running execution). */
export class UnknownTask extends Error {
  constructor(readonly taskId: string) {
    super(`The flow has no task '${taskId}'`);
    this.name = 'UnknownTask';
  }
}

const indexes = new WeakMap<Flow, ReadonlyMap<string, Task>>();

export function taskById(flow: Flow, taskId: string): Task {
  let index = indexes.get(flow);
  if (index === undefined) {
    index = buildIndex(flow);
    indexes.set(flow, index);
  }
  const task = index.get(taskId);
  if (task === undefined) throw new UnknownTask(taskId);
  return task;
}

function buildIndex(flow: Flow): ReadonlyMap<string, Task> {
  const index = new Map<string, Task>();
  const visit = (tasks: readonly Task[] | undefined): void => {
    for (const task of tasks ?? []) {
      index.set(task.id, task);
      for (const list of childLists(task)) visit(list);
    }
  };
  visit(flow.tasks);
  visit(flow.errors);
  visit(flow.finally);
  return index;
}

/** Every task list a task carries (branches, errors, finally), for walking the tree. */
export function childLists(task: Task): (readonly Task[])[] {
  const rules = rulesOf(task);
  const lists = rules?.hasChildren === true ? rules.taskLists(task) : [];
  if ('errors' in task && task.errors) lists.push(task.errors);
  if ('finally' in task && task.finally) lists.push(task.finally);
  return lists;
}
