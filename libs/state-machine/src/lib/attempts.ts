// Small readers and writers of a task run's attempts, and durations in messages.
import { copyAttempt } from './shapes';
import type { JsonObject, Millis, TaskRun, TaskRunAttempt } from './types';

export function lastAttempt(run: TaskRun): TaskRunAttempt | undefined {
  return run.attempts[run.attempts.length - 1];
}

export function replaceLast(attempts: readonly TaskRunAttempt[], attempt: TaskRunAttempt): TaskRunAttempt[] {
  const copy = attempts.slice();
  copy[copy.length - 1] = attempt;
  return copy;
}

export function endAttempt(
  run: TaskRun,
  state: TaskRunAttempt['state'],
  now: Millis,
  extra: { outputs?: JsonObject | undefined; error?: string | undefined } = {},
): TaskRunAttempt[] {
  const attempt = lastAttempt(run);
  if (attempt === undefined) return run.attempts.slice();
  return replaceLast(run.attempts, copyAttempt(attempt, { state, endedAt: now, outputs: extra.outputs, error: extra.error }));
}

/** `PT1M30S`-like text for messages. */
export function formatDuration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  return `PT${ms / 1000}S`;
}
