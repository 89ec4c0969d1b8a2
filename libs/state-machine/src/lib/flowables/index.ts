// Every flowable kind's rules, by kind: adding a kind to the model's
// FlowableTask without rules here does not compile.
import type { Task } from '@lanner/model';
import { allowFailureRules } from './allow-failure';
import { dagRules } from './dag';
import type { FlowableKind, FlowableOfKind, FlowableRules } from './flowable';
import { forEachRules } from './for-each';
import { ifRules } from './if';
import { labelsRules } from './labels';
import { parallelRules } from './parallel';
import { pauseRules, pausesChildren, pauseWithTasksRules } from './pause';
import { sequentialRules } from './sequential';
import { subflowRules } from './subflow';
import { switchRules } from './switch';
import { waitForRules } from './wait-for';

const FLOWABLES: { readonly [K in FlowableKind]: FlowableRules<FlowableOfKind<K>> } = {
  Sequential: sequentialRules,
  Parallel: parallelRules,
  If: ifRules,
  Switch: switchRules,
  ForEach: forEachRules,
  Dag: dagRules,
  AllowFailure: allowFailureRules,
  WaitFor: waitForRules,
  Pause: pauseRules,
  Subflow: subflowRules,
  Labels: labelsRules,
};

/** The rules of a flowable task; undefined for a runnable one (it runs on a worker). */
export function rulesOf(task: Task): FlowableRules | undefined {
  // A Pause with Kestra's deprecated `tasks` runs them after its resume.
  if (task.kind === 'Pause' && pausesChildren(task)) return pauseWithTasksRules as FlowableRules;
  return (FLOWABLES as Readonly<Record<string, FlowableRules>>)[task.kind];
}

export type { ContainerRules, FlowableRules, FlowableStep, Lanes, LeafRules, MainEnd } from './flowable';
export { oneLane } from './flowable';
export { DAG_TASK } from './dag';
export { pauseResumeInputs, pauseTimedOut, resumePause } from './pause';
export { subflowChildEnded } from './subflow';
export { startNextIteration } from './wait-for';
