import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredJson } from '@lanner/model';

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
