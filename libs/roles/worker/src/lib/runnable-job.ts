import { RUNNABLE_TASK_KINDS, TRIGGER_TYPES, type RunnableTask } from '@lanner/model';
import type { HttpPollDefinition } from '@lanner/plugins';
import { millisFromDuration, type Job } from '@lanner/frames';

export type RunnableJob = { readonly ok: true; readonly task: RunnableTask } | { readonly ok: false; readonly reason: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a Job's task definition (the task as the executor rendered it, JSON)
 * into the RunnableTask the plugins run. Only the envelope is checked here
 * (an object, a string id, a runnable `kind`); each task implementation
 * validates its own properties and fails the task with a message when one is
 * wrong. The job's timeout, when set, replaces the task's own: the executor
 * computed it for this attempt.
 */
export function runnableTaskOf(job: Job): RunnableJob {
  let definition: unknown;
  try {
    definition = JSON.parse(job.taskDefinitionJson);
  } catch {
    return { ok: false, reason: `the job's task definition is not valid JSON (task run ${job.taskRunId})` };
  }
  if (!isObject(definition)) return { ok: false, reason: "the job's task definition is not a JSON object" };
  if (typeof definition['id'] !== 'string' || definition['id'] === '') {
    return { ok: false, reason: "the job's task definition has no id" };
  }
  const kind = definition['kind'];
  if (typeof kind !== 'string' || !RUNNABLE_TASK_KINDS.has(kind)) {
    return {
      ok: false,
      reason: `task type '${job.taskType}' (kind ${JSON.stringify(kind ?? null)}) cannot run on a worker; runnable kinds: ${[...RUNNABLE_TASK_KINDS].join(', ')}`,
    };
  }
  const timeoutMs = millisFromDuration(job.timeout);
  const withTimeout = timeoutMs !== undefined && timeoutMs > 0 ? { ...definition, timeoutMs } : definition;
  // The envelope is checked above; the kind-specific properties are checked by the task's implementation.
  return { ok: true, task: withTimeout as unknown as RunnableTask };
}

export type PollJob = { readonly ok: true; readonly poll: HttpPollDefinition } | { readonly ok: false; readonly reason: string };

/**
 * The poll of an HTTP polling trigger the scheduler sent (its task type is the
 * trigger's), or undefined for a task run's job. Only the shape is checked here.
 */
export function pollJobOf(job: Job): PollJob | undefined {
  if (job.taskType !== TRIGGER_TYPES.HttpPolling) return undefined;
  let definition: unknown;
  try {
    definition = JSON.parse(job.taskDefinitionJson);
  } catch {
    return { ok: false, reason: "the trigger evaluation's definition is not valid JSON" };
  }
  if (!isObject(definition)) return { ok: false, reason: "the trigger evaluation's definition is not a JSON object" };
  const { uri, method, responseCondition, headers, body, contentType } = definition;
  if (typeof uri !== 'string' || typeof method !== 'string' || typeof responseCondition !== 'string') {
    return { ok: false, reason: "the trigger evaluation's definition needs a uri, a method and a responseCondition" };
  }
  const stringMap =
    isObject(headers) && Object.values(headers).every((value) => typeof value === 'string')
      ? (headers as Record<string, string>)
      : undefined;
  return {
    ok: true,
    poll: {
      uri,
      method,
      responseCondition,
      ...(stringMap !== undefined ? { headers: stringMap } : {}),
      ...(typeof body === 'string' ? { body } : {}),
      ...(typeof contentType === 'string' ? { contentType } : {}),
    },
  };
}
