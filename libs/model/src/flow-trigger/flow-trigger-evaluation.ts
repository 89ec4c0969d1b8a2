// Whether a Flow trigger starts its flow when an execution ends (Kestra's
// `io.kestra.plugin.core.trigger.Flow`): its states and conditions, then its
// preconditions, met within their time window. Pure: time and expression
// rendering are arguments.

import type {
  FlowTrigger,
  FlowTriggerCondition,
  FlowTriggerPreconditions,
  PreconditionFilter,
  PreconditionTimeWindow,
} from '../flow/flow.types';

/** The ended execution a Flow trigger is evaluated against. */
export interface UpstreamExecution {
  readonly id: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly flowRevision: number;
  readonly state: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly outputs?: Readonly<Record<string, unknown>>;
}

/** Renders a template of a condition or filter against the upstream execution (`trigger.*`, `execution.*`). */
export type RenderCondition = (template: string) => string;

/** `trigger.*` of an execution a Flow trigger started: the upstream execution, and its flow outputs. */
export function flowTriggerVariables(upstream: UpstreamExecution): Record<string, unknown> {
  return {
    executionId: upstream.id,
    namespace: upstream.namespace,
    flowId: upstream.flowId,
    flowRevision: upstream.flowRevision,
    state: upstream.state,
    outputs: upstream.outputs ?? {},
  };
}

/**
 * Whether `trigger` of flow `listener` reacts to `upstream` at all: not disabled,
 * not the listener's own execution (a flow never triggers itself), one of the
 * trigger's `states`, and every condition holds. Preconditions come after.
 */
export function flowTriggerListens(
  listener: { readonly namespace: string; readonly id: string },
  trigger: FlowTrigger,
  upstream: UpstreamExecution,
  render: RenderCondition,
): boolean {
  if (trigger.disabled) return false;
  if (upstream.namespace === listener.namespace && upstream.flowId === listener.id) return false;
  if (!trigger.states.includes(upstream.state)) return false;
  return trigger.conditions.every((condition) => conditionHolds(condition, upstream, render));
}

function conditionHolds(condition: FlowTriggerCondition, upstream: UpstreamExecution, render: RenderCondition): boolean {
  switch (condition.kind) {
    case 'ExecutionFlow':
      return upstream.namespace === condition.namespace && upstream.flowId === condition.flowId;
    case 'ExecutionStatus':
      return (
        (condition.in === undefined || condition.in.includes(upstream.state)) &&
        (condition.notIn === undefined || !condition.notIn.includes(upstream.state))
      );
    case 'ExecutionNamespace':
      return condition.prefix
        ? upstream.namespace === condition.namespace || upstream.namespace.startsWith(`${condition.namespace}.`)
        : upstream.namespace === condition.namespace;
    case 'ExecutionLabels':
      return Object.entries(condition.labels).every(([key, value]) => upstream.labels[key] === value);
    case 'Expression':
      return conditionTruthy(render(condition.expression));
    case 'ExecutionOutputs':
      // Kestra's shortcut: an execution without flow outputs never meets it.
      return (
        upstream.outputs !== undefined &&
        Object.keys(upstream.outputs).length > 0 &&
        conditionTruthy(render(condition.expression))
      );
  }
}

/** The names of a trigger's preconditions, each to be met within the window: `flows[i]` and `where.<id>`. */
export function preconditionKeys(preconditions: FlowTriggerPreconditions): string[] {
  return [
    ...preconditions.flows.map((_, index) => `flows[${index}]`),
    ...preconditions.where.map((entry) => `where.${entry.id}`),
  ];
}

/** The preconditions `upstream` meets. */
export function metPreconditions(
  preconditions: FlowTriggerPreconditions,
  upstream: UpstreamExecution,
  render: RenderCondition,
): string[] {
  const met: string[] = [];
  preconditions.flows.forEach((flow, index) => {
    if (flow.namespace !== upstream.namespace) return;
    if (flow.flowId !== undefined && flow.flowId !== upstream.flowId) return;
    if (flow.states !== undefined && !flow.states.includes(upstream.state)) return;
    if (flow.labels !== undefined && !Object.entries(flow.labels).every(([key, value]) => upstream.labels[key] === value)) return;
    met.push(`flows[${index}]`);
  });
  for (const entry of preconditions.where) {
    const holds = (filter: PreconditionFilter) => filterHolds(filter, upstream, render);
    const matched = entry.operand === 'OR' ? entry.filters.some(holds) : entry.filters.every(holds);
    if (matched) met.push(`where.${entry.id}`);
  }
  return met;
}

function filterHolds(filter: PreconditionFilter, upstream: UpstreamExecution, render: RenderCondition): boolean {
  const field: string | undefined =
    filter.field === 'FLOW_ID'
      ? upstream.flowId
      : filter.field === 'NAMESPACE'
        ? upstream.namespace
        : filter.field === 'STATE'
          ? upstream.state
          : render(filter.value ?? '');
  const value = filter.value;
  switch (filter.type) {
    case 'EQUAL_TO':
      return field === value;
    case 'NOT_EQUAL_TO':
      return field !== value;
    case 'IN':
      return (filter.values ?? []).includes(field);
    case 'NOT_IN':
      return !(filter.values ?? []).includes(field);
    case 'IS_TRUE':
      return isTruthy(field);
    case 'IS_FALSE':
      return !isTruthy(field);
    case 'IS_NULL':
      return field === undefined || field === '';
    case 'IS_NOT_NULL':
      return field !== undefined && field !== '';
    case 'STARTS_WITH':
      return value !== undefined && field.startsWith(value);
    case 'ENDS_WITH':
      return value !== undefined && field.endsWith(value);
    case 'REGEX':
      // The whole field must match, as Java's String.matches does.
      return value !== undefined && new RegExp(`^(?:${value})$`).test(field);
    case 'CONTAINS':
      return value !== undefined && field.includes(value);
  }
}

/** A condition's rendered text holds unless blank or `false` (Kestra's Expression condition). */
function conditionTruthy(text: string): boolean {
  return text.trim() !== '' && text.trim() !== 'false';
}

/** IS_TRUE / IS_FALSE filters: anything but `false`, `0`, `-0` and the empty text (Kestra's TruthUtils). */
function isTruthy(text: string): boolean {
  return !['false', '0', '-0', ''].includes(text);
}

/** A precondition window as stored: its bounds (epoch ms, both inclusive) and which preconditions were met, by which execution. */
export interface PreconditionWindow {
  readonly start: number;
  readonly end: number;
  readonly met: Readonly<Record<string, string>>;
}

const DAY_MS = 86_400_000;

/**
 * The window a precondition met at `now` opens. Duration windows follow each
 * other from midnight UTC (a `PT6H` window: 00:00-06:00, 06:00-12:00, ...),
 * shifted by `windowAdvance`; a sliding window starts at `now`; the daily ones
 * are today's (UTC) hours.
 */
export function preconditionWindowAt(timeWindow: PreconditionTimeWindow, now: number): { start: number; end: number } {
  const midnight = Math.floor(now / DAY_MS) * DAY_MS;
  switch (timeWindow.type) {
    case 'DURATION_WINDOW': {
      const { windowMs, advanceMs } = timeWindow;
      const start = Math.floor((now - advanceMs) / windowMs) * windowMs + advanceMs;
      return { start, end: start + windowMs - 1 };
    }
    case 'SLIDING_WINDOW':
      return { start: now, end: now + timeWindow.windowMs };
    case 'DAILY_TIME_DEADLINE':
      return { start: midnight, end: midnight + timeWindow.deadlineSecond * 1000 };
    case 'DAILY_TIME_WINDOW':
      return { start: midnight + timeWindow.startSecond * 1000, end: midnight + timeWindow.endSecond * 1000 };
  }
}

/** What one upstream execution does to a trigger's preconditions: fire or not, and the window to keep (null: none). */
export interface PreconditionStep {
  readonly fire: boolean;
  readonly window: PreconditionWindow | null;
}

/**
 * One evaluation of the preconditions: the stored window if `now` is still in
 * it, else a new one; outside the daily hours nothing counts. `met` (the
 * preconditions `upstream` meets) are added; when all are met the trigger
 * fires, and the window is dropped unless `resetOnSuccess` is false (then each
 * later execution meeting one of them fires again within the window).
 */
export function stepPreconditions(
  preconditions: FlowTriggerPreconditions,
  stored: PreconditionWindow | undefined,
  met: readonly string[],
  upstreamExecutionId: string,
  now: number,
): PreconditionStep {
  const current = stored !== undefined && now >= stored.start && now <= stored.end ? stored : undefined;
  if (met.length === 0) return { fire: false, window: current ?? null };
  const window = current ?? { ...preconditionWindowAt(preconditions.timeWindow, now), met: {} };
  if (now < window.start || now > window.end) return { fire: false, window: null };
  const merged: Record<string, string> = { ...window.met };
  for (const key of met) merged[key] = upstreamExecutionId;
  const fire = preconditionKeys(preconditions).every((key) => merged[key] !== undefined);
  if (fire && preconditions.resetOnSuccess) return { fire: true, window: null };
  return { fire, window: { start: window.start, end: window.end, met: merged } };
}
