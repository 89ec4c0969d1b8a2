import { randomUUID } from 'node:crypto';
import { backfillRange, coerceInputs, type Flow, type TriggerStateRecord } from '@lanner/model';
import type { TenantRepositories, TenantTriggerKey } from '@lanner/repository';
import { InvalidContent, InvalidRequest, WrongState } from '../http/api-errors';

/** What a caller asks for: a past range of the schedule, with inputs and labels for its executions. */
export interface BackfillAsked {
  readonly start: Date;
  readonly end?: Date;
  readonly inputs?: Record<string, unknown>;
  readonly labels?: Record<string, string>;
}

/**
 * Starts a backfill of a Schedule trigger after checking it against the flow's
 * latest revision: a past range, inputs the flow accepts, no reserved label.
 * The scheduler then fires its dates, paced (see docs/scheduler.md).
 */
export async function startBackfill(
  tenant: Pick<TenantRepositories, 'triggers' | 'flows'>,
  key: TenantTriggerKey,
  asked: BackfillAsked,
  now: Date,
): Promise<TriggerStateRecord> {
  const record = await tenant.triggers.get(key);
  const flow = (await tenant.flows.getLatest(key.namespace, key.flowId)).definition as unknown as Flow;
  const trigger = flow.triggers.find((candidate) => candidate.id === key.triggerId);
  if (record.kind !== 'Schedule' || trigger === undefined || trigger.kind !== 'Schedule') {
    throw new WrongState(`trigger '${key.triggerId}' is not a Schedule: only schedules can be backfilled`);
  }
  const range = backfillRange(asked, now);
  if (!range.ok) {
    throw new InvalidRequest(
      'The backfill is not valid',
      range.problems.map((problem) => ({ path: `body.${problem.path}`, message: problem.message })),
    );
  }
  const inputs = asked.inputs ?? {};
  // Checked now, as each execution will be: a backfill whose inputs the flow refuses would fire nothing.
  const checked = coerceInputs(flow.inputs, { ...(trigger.inputs ?? {}), ...inputs });
  if (!checked.ok) {
    throw new InvalidContent(
      'The backfill inputs do not fit the flow',
      checked.problems.map((problem) => ({ path: `body.${problem.path}`, message: problem.message })),
    );
  }
  return tenant.triggers.createBackfill(
    key,
    { id: randomUUID(), start: range.start, end: range.end, inputs, labels: asked.labels ?? {} },
    now,
  );
}
