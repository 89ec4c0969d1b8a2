// The triggers a stored flow definition declares, as the trigger table keeps them.

import type { DeclaredTrigger } from '../records/trigger.record';
import type { StoredJson } from '../records/states';

/**
 * One entry per trigger of the parsed flow stored as JSON. A schedule's spec
 * names what decides its dates (cron, time zone, seconds, and whether it or its
 * flow is disabled), so a change to any of them restarts it from the next date.
 */
export function declaredTriggers(definition: StoredJson): DeclaredTrigger[] {
  if (definition === null || typeof definition !== 'object' || Array.isArray(definition)) return [];
  const triggers = definition['triggers'];
  if (!Array.isArray(triggers)) return [];
  const flowDisabled = definition['disabled'] === true;
  const declared: DeclaredTrigger[] = [];
  for (const trigger of triggers) {
    if (trigger === null || typeof trigger !== 'object' || Array.isArray(trigger)) continue;
    const { id, kind } = trigger;
    if (typeof id !== 'string' || typeof kind !== 'string') continue;
    if (kind === 'HttpPolling') {
      // Polled by the scheduler too: due at once when new, when its interval changed or when it is enabled again.
      const spec = { interval: trigger['intervalMs'], disabled: trigger['disabled'] === true || flowDisabled };
      declared.push({ triggerId: id, kind, scheduleSpec: JSON.stringify(spec) });
      continue;
    }
    if (kind !== 'Schedule') {
      declared.push({ triggerId: id, kind });
      continue;
    }
    const spec = {
      cron: trigger['cron'],
      timezone: trigger['timezone'],
      withSeconds: trigger['withSeconds'] === true,
      disabled: trigger['disabled'] === true || flowDisabled,
    };
    declared.push({ triggerId: id, kind, scheduleSpec: JSON.stringify(spec) });
  }
  return declared;
}
