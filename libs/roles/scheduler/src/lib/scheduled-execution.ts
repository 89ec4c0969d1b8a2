import {
  coerceInputs,
  CORRELATION_ID_LABEL,
  type Flow,
  type NewExecution,
  type ScheduleFiring,
  type ScheduleTrigger,
  type StoredJson,
  zonedIsoString,
} from '@lanner/model';

/** The label every execution a trigger started carries, naming the trigger (`<trigger id>`). */
export const TRIGGER_LABEL = 'system.triggerId';

/**
 * `trigger.*` of a schedule's execution: its date and the cron's next and
 * previous dates, written with the offset of the schedule's time zone (as
 * Kestra renders them; UTC dates end in `Z`).
 */
export function scheduleVariables(firing: ScheduleFiring, timeZone: string): Record<string, string> {
  const render = (date: Date) => zonedIsoString(date, timeZone);
  return {
    date: render(firing.date),
    ...(firing.next !== undefined ? { next: render(firing.next) } : {}),
    ...(firing.previous !== undefined ? { previous: render(firing.previous) } : {}),
  };
}

export type ScheduledExecution =
  { readonly ok: true; readonly execution: NewExecution } | { readonly ok: false; readonly reason: string };

/**
 * The execution one firing of `trigger` creates: the trigger's inputs checked
 * against the flow's, its labels, and its `trigger` column (id, type and the
 * variables templates read as `trigger.*`).
 */
export function scheduledExecution(
  flow: Flow,
  revision: number,
  trigger: ScheduleTrigger,
  firing: ScheduleFiring,
  id: string,
  now: Date,
  extra: { readonly inputs?: Record<string, unknown>; readonly labels?: Record<string, string> } = {},
): ScheduledExecution {
  const inputs = coerceInputs(flow.inputs, { ...(trigger.inputs ?? {}), ...(extra.inputs ?? {}) });
  if (!inputs.ok) {
    return { ok: false, reason: inputs.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ') };
  }
  return {
    ok: true,
    execution: {
      id,
      namespace: flow.namespace,
      flowId: flow.id,
      flowRevision: revision,
      state: 'CREATED',
      stateHistories: [{ state: 'CREATED', date: now }],
      inputs: inputs.values as StoredJson,
      // As every execution: its correlation id is its own id, carried to its subflows and retries.
      labels: { ...flow.labels, ...(extra.labels ?? {}), [TRIGGER_LABEL]: trigger.id, [CORRELATION_ID_LABEL]: id },
      trigger: { id: trigger.id, type: trigger.type, variables: scheduleVariables(firing, trigger.timezone) },
    },
  };
}
