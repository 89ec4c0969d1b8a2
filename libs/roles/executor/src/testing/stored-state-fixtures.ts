import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredJson } from '@lanner/model';
import type { ExecutorStateWrite } from '@lanner/repository';

// `fixtures/state-v1.json` is executions.state_data as the executor stored it
// before the format version existed (format 1), read back from PostgreSQL while
// the first task of `STORED_V1_FLOW` waited on its worker. Its execution id is a
// placeholder, replaced by the id of the execution a spec stores it for.

const FORMAT_1 = join(__dirname, '..', 'fixtures', 'state-v1.json');

/** The flow the format 1 fixture belongs to. */
export const STORED_V1_FLOW = `
id: stored-v1
namespace: company.team
tasks:
  - id: first
    type: io.kestra.plugin.core.debug.Return
    format: one
  - id: second
    type: io.kestra.plugin.core.debug.Return
    format: two
`;

/** The format 1 fixture for the execution `executionId`. */
export function format1State(executionId: string): Record<string, StoredJson> {
  return JSON.parse(readFileSync(FORMAT_1, 'utf8').split('EXECUTION_ID').join(executionId)) as Record<string, StoredJson>;
}

/**
 * What the repository reads back after `writes` (in order): the last document, with the
 * last stored value of each task run under `taskRuns`, as `getExecutorState` composes them.
 * For unit specs; the repository's own int-specs show the real composition.
 */
export function readBack(...writes: readonly ExecutorStateWrite[]): StoredJson {
  const runs = new Map<string, StoredJson>();
  for (const write of writes) {
    for (const run of write.taskRuns ?? []) if (run.machineData !== undefined) runs.set(run.id, run.machineData);
  }
  const last = writes[writes.length - 1];
  if (last === undefined) throw new Error('readBack needs at least one write');
  const document = last.stateData as Record<string, StoredJson>;
  return 'taskRuns' in document ? document : { ...document, taskRuns: [...runs.values()] };
}
