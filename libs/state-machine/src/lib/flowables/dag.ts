// Dag: one lane per task; a lane starts once every task it depends on
// succeeded, up to `concurrency` at once (0: all). Each lane's state is kept in
// `progress.dag`; tasks left waiting when the rest succeeded can never start
// (a cycle or an unknown id) and fail the Dag.
import type { DagTask, Task } from '@lanner/model';
import { EMPTY_PROGRESS, type LaneEnd } from '../progress';
import type { DagTaskState } from '../types';
import type { ContainerRules, LaneStates } from './flowable';

/** The stored numbers of `DagTaskState`, by name. */
export const DAG_TASK = { waiting: 0, running: 1, succeeded: 2, failed: 3 } as const satisfies Record<string, DagTaskState>;

function stateAfter(end: LaneEnd): DagTaskState {
  if (end === 'live') return DAG_TASK.running;
  return end === 'done' ? DAG_TASK.succeeded : DAG_TASK.failed;
}

const dagLanes: LaneStates<DagTask> = {
  next(task, progress) {
    const states = progress.dag ?? [];
    const index = new Map(task.tasks.map((entry, i) => [entry.task.id, i]));
    for (let lane = 0; lane < task.tasks.length; lane++) {
      if (states[lane] !== DAG_TASK.waiting) continue;
      const ready = (task.tasks[lane]?.dependsOn ?? []).every((dep) => states[index.get(dep) ?? -1] === DAG_TASK.succeeded);
      if (ready) return lane;
    }
    return undefined;
  },
  record(states, lane, end) {
    const copy = states.slice();
    copy[lane] = stateAfter(end);
    return copy;
  },
  neverStarted: (states, lane) => states[lane] === DAG_TASK.waiting,
};

export const dagRules: ContainerRules<DagTask> = {
  hasChildren: true,
  taskLists: (task) => [task.tasks.map((entry) => entry.task)],
  start: (task) => ({ ...EMPTY_PROGRESS, dag: task.tasks.map(() => DAG_TASK.waiting) }),
  lanes: (task) => ({
    count: task.tasks.length,
    limit: task.concurrency || Infinity,
    tasksOf: (lane) => [task.tasks[lane]?.task as Task],
  }),
  laneStates: dagLanes,
  mainEnded(_task, _step, _run, progress, outcome) {
    if (outcome !== 'SUCCESS' || !progress.dag?.some((state) => state === DAG_TASK.waiting)) return undefined;
    return { outcome: 'FAILED', error: 'Dag: some tasks have dependencies that can never be met' };
  },
};
