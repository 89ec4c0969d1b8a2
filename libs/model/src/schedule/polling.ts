import type { HttpPollingTrigger } from '../flow/flow.types';
import { meetsConditions } from './schedule-dates';

/** The execution states after which an execution changes no more. */
const ENDED_STATES: ReadonlySet<string> = new Set(['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'RETRIED']);

/** What the scheduler does with a due polling trigger. */
export type PollingDecision =
  /** Send an evaluation to a worker now. */
  | { readonly action: 'POLL' }
  /** The execution it started last still runs: no evaluation before `nextDate`. */
  | { readonly action: 'WAIT'; readonly nextDate: Date }
  /** `stopAfter` matched the state its last execution ended in: the trigger disables itself. */
  | { readonly action: 'STOP' };

/**
 * Decides whether a due polling trigger is evaluated at `now`. As in Kestra, a
 * polling trigger is not evaluated while the last execution it started has not
 * ended (it is looked at again one interval later) unless `allowConcurrent`,
 * `stopAfter` disables it once that execution ended in a listed state, and
 * its `conditions` (read in UTC) keep it from polling at times that fail one.
 */
export function decidePoll(
  trigger: Pick<HttpPollingTrigger, 'intervalMs' | 'stopAfter' | 'allowConcurrent' | 'conditions'>,
  lastExecutionState: string | undefined,
  now: Date,
): PollingDecision {
  const later: PollingDecision = { action: 'WAIT', nextDate: new Date(now.getTime() + trigger.intervalMs) };
  const running = lastExecutionState !== undefined && !ENDED_STATES.has(lastExecutionState);
  if (running && trigger.allowConcurrent !== true) return later;
  if (!running && lastExecutionState !== undefined && (trigger.stopAfter ?? []).includes(lastExecutionState)) {
    return { action: 'STOP' };
  }
  const conditions = trigger.conditions ?? [];
  if (conditions.length > 0 && !meetsConditions({ timezone: 'Etc/UTC', conditions }, now)) return later;
  return { action: 'POLL' };
}

/** What a worker answered for one evaluation of an HTTP polling trigger. */
export interface HttpPollOutcome {
  /** True when `responseCondition` held. */
  readonly fire: boolean;
  readonly uri: string;
  readonly code: number;
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly body: string;
}

/**
 * Reads a poll job's outputs as the worker reported them; undefined when they
 * are not the outcome of a poll (a failed request, or outputs of another shape).
 */
export function httpPollOutcomeOf(outputs: Readonly<Record<string, unknown>>): HttpPollOutcome | undefined {
  const { fire, uri, code, headers, body } = outputs;
  if (typeof fire !== 'boolean' || typeof uri !== 'string' || typeof code !== 'number' || typeof body !== 'string') {
    return undefined;
  }
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return undefined;
  return { fire, uri, code, headers: headers as Record<string, readonly string[]>, body };
}

/** `trigger.*` of an execution a poll started: Kestra's `uri`, `code`, `headers` and `body`. */
export function httpPollVariables(outcome: HttpPollOutcome): Record<string, unknown> {
  return { uri: outcome.uri, code: outcome.code, headers: outcome.headers, body: outcome.body };
}
