// Triggers and the conditions of Flow triggers.

import { isScalar, type Node } from 'yaml';
import { EXECUTION_RECORD_STATES } from '../records/states';
import type {
  DayInMonth,
  DayOfWeekName,
  ExecutionFilterPrecondition,
  FlowTrigger,
  FlowTriggerCondition,
  FlowTriggerPreconditions,
  PreconditionFilter,
  PreconditionFilterField,
  PreconditionFilterType,
  PreconditionTimeWindow,
  ScheduleCondition,
  Trigger,
  TriggerCommon,
  UpstreamFlowPrecondition,
} from './flow.types';
import { cronProblem } from './cron';
import { FlowSource, ObjectView } from './flow-source';
import { dropUndefined, readWorkerSelector, TASK_ID_PATTERN } from './read-tasks';
import {
  CONDITION_TYPES,
  LEGACY_CONDITION_TYPES,
  LEGACY_TRIGGER_TYPES,
  PUBLIC_HOLIDAY_ALIASES,
  SCHEDULE_CONDITION_TYPES,
  TRIGGER_TYPES,
} from './task-type-names';
import { unknownHolidayCalendar } from '../schedule/public-holidays';

const COMMON_KEYS = ['id', 'type', 'description', 'disabled'];
const TRIGGER_KEYS: Readonly<Record<string, readonly string[]>> = {
  [TRIGGER_TYPES.Schedule]: ['cron', 'timezone', 'inputs', 'withSeconds', 'recoverMissedSchedules', 'stopAfter', 'conditions'],
  [TRIGGER_TYPES.Flow]: ['conditions', 'inputs', 'states', 'preconditions'],
  [TRIGGER_TYPES.Webhook]: ['key'],
  [TRIGGER_TYPES.HttpPolling]: [
    'uri',
    'method',
    'headers',
    'body',
    'contentType',
    'interval',
    'responseCondition',
    'stopAfter',
    'allowConcurrent',
    'conditions',
    'workerSelector',
  ],
};
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const RECOVER_MODES = ['ALL', 'LAST', 'NONE'] as const;
const DAYS_OF_WEEK: readonly DayOfWeekName[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const DAYS_IN_MONTH: readonly DayInMonth[] = ['FIRST', 'SECOND', 'THIRD', 'FOURTH', 'LAST'];
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;
/** The states an execution ends in: what a Flow trigger listens to unless its `states` say otherwise (Kestra's terminated states). */
export const FLOW_TRIGGER_DEFAULT_STATES: readonly string[] = ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'RETRIED'];
const FILTER_FIELDS: readonly PreconditionFilterField[] = ['FLOW_ID', 'NAMESPACE', 'STATE', 'EXPRESSION'];
const FILTER_TYPES: readonly PreconditionFilterType[] = [
  'EQUAL_TO',
  'NOT_EQUAL_TO',
  'IN',
  'NOT_IN',
  'IS_TRUE',
  'IS_FALSE',
  'IS_NULL',
  'IS_NOT_NULL',
  'STARTS_WITH',
  'ENDS_WITH',
  'REGEX',
  'CONTAINS',
];
const WINDOW_TYPES = ['DURATION_WINDOW', 'SLIDING_WINDOW', 'DAILY_TIME_DEADLINE', 'DAILY_TIME_WINDOW'] as const;
const DAY_MS = 86_400_000;
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export function readTriggers(source: FlowSource, flow: ObjectView): Trigger[] {
  const node = flow.node('triggers');
  if (node === undefined) return [];
  const items = source.list(node, flow.at('triggers'), 'a list of triggers') ?? [];
  const ids = new Map<string, string>();
  const triggers: Trigger[] = [];
  const own = { namespace: plainText(flow.node('namespace')), id: plainText(flow.node('id')) };
  for (const item of items) {
    const trigger = readTrigger(source, item.node, item.path, ids);
    if (trigger?.kind === 'Flow') refuseListeningToItself(source, trigger, item.path, item.node, own);
    if (trigger) triggers.push(trigger);
  }
  return triggers;
}

function plainText(node: Node | undefined): string | undefined {
  return node !== undefined && isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
}

/**
 * A flow never triggers itself (its own executions are skipped, as in Kestra), so a
 * Flow trigger that asks for executions of its own flow could never fire: refused.
 */
function refuseListeningToItself(
  source: FlowSource,
  trigger: FlowTrigger,
  path: string,
  node: Node,
  own: { readonly namespace?: string; readonly id?: string },
): void {
  if (own.namespace === undefined || own.id === undefined) return;
  const message = `names this flow (${own.namespace}.${own.id}): a flow never triggers itself`;
  trigger.conditions.forEach((condition, index) => {
    if (condition.kind === 'ExecutionFlow' && condition.namespace === own.namespace && condition.flowId === own.id)
      source.report(`${path}.conditions[${index}]`, message, node);
  });
  trigger.preconditions?.flows.forEach((flow, index) => {
    if (flow.namespace === own.namespace && flow.flowId === own.id)
      source.report(`${path}.preconditions.flows[${index}]`, message, node);
  });
}

function readTrigger(source: FlowSource, node: Node, path: string, ids: Map<string, string>): Trigger | undefined {
  const view = source.object(node, path, 'a trigger (a mapping with an id and a type)');
  if (!view) return undefined;
  const id = view.string('id', true);
  if (view.has('id') && id !== '') {
    if (!TASK_ID_PATTERN.test(id))
      view.report('id', 'must start with a letter or digit and contain only letters, digits, _ and -');
    const first = ids.get(id);
    if (first !== undefined) view.report('id', `duplicate trigger id '${id}' (also at ${first})`);
    else ids.set(id, view.at('id'));
  }
  const written = view.string('type', true);
  if (!view.has('type') || written === '') return undefined;
  const type = LEGACY_TRIGGER_TYPES[written] ?? written;
  const ownKeys = Object.prototype.hasOwnProperty.call(TRIGGER_KEYS, type) ? TRIGGER_KEYS[type] : undefined;
  if (ownKeys === undefined) {
    view.report('type', `unknown trigger type '${written}'`);
    return undefined;
  }
  view.rejectUnknown([...COMMON_KEYS, ...ownKeys], type);
  const common: TriggerCommon = dropUndefined({
    id,
    type,
    description: view.string('description'),
    disabled: view.boolean('disabled', false),
    inputs: ownKeys.includes('inputs') ? view.valueRecord('inputs') : undefined,
  });
  switch (type) {
    case TRIGGER_TYPES.Schedule: {
      const cron = view.string('cron', true);
      const withSeconds = view.boolean('withSeconds', false);
      const cronError = view.has('cron') && cron !== '' ? cronProblem(cron, withSeconds) : undefined;
      if (cronError) view.report('cron', cronError);
      // Kestra schedules in UTC unless told otherwise.
      const timezone = view.string('timezone') ?? 'Etc/UTC';
      if (view.has('timezone') && !isKnownTimeZone(timezone)) view.report('timezone', `unknown time zone '${timezone}'`);
      return {
        ...common,
        kind: 'Schedule',
        cron,
        timezone,
        withSeconds,
        recoverMissedSchedules: view.enumOf('recoverMissedSchedules', RECOVER_MODES, 'ALL'),
        stopAfter: readStates(view, 'stopAfter') ?? [],
        conditions: readScheduleConditions(source, view),
      };
    }
    case TRIGGER_TYPES.Flow: {
      const states = readStates(view, 'states');
      states?.forEach((state, index) => {
        if (!FLOW_TRIGGER_DEFAULT_STATES.includes(state))
          source.report(
            `${view.at('states')}[${index}]`,
            `'${state}' is not a state an execution ends in; a Flow trigger is evaluated when an execution ends (${FLOW_TRIGGER_DEFAULT_STATES.join(', ')})`,
            view.position('states'),
          );
      });
      const preconditions = view.has('preconditions') ? readPreconditions(source, view) : undefined;
      return dropUndefined({
        ...common,
        kind: 'Flow' as const,
        states: states ?? FLOW_TRIGGER_DEFAULT_STATES,
        conditions: readConditions(source, view),
        preconditions,
      });
    }
    case TRIGGER_TYPES.Webhook: {
      const key = view.string('key', true);
      if (key.length > 256) view.report('key', 'must be at most 256 characters');
      return { ...common, kind: 'Webhook', key };
    }
    case TRIGGER_TYPES.HttpPolling:
      return dropUndefined({
        ...common,
        kind: 'HttpPolling' as const,
        uri: view.template('uri', true),
        method: view.enumOf('method', HTTP_METHODS, 'GET'),
        headers: view.stringRecord('headers'),
        body: view.string('body'),
        contentType: view.string('contentType'),
        // Kestra's defaults: poll every minute, succeed on any status below 400.
        intervalMs: view.duration('interval', { positive: true }) ?? 60_000,
        responseCondition: view.template('responseCondition') ?? '{{ response.statusCode < 400 }}',
        stopAfter: readStates(view, 'stopAfter') ?? [],
        // Kestra's default: no poll while an execution it started runs.
        allowConcurrent: view.boolean('allowConcurrent', false),
        conditions: view.has('conditions') ? readScheduleConditions(source, view) : undefined,
        workerSelector: readWorkerSelector(view, 'workerSelector'),
      });
    default:
      return undefined;
  }
}

function readConditions(source: FlowSource, trigger: ObjectView): FlowTriggerCondition[] {
  const node = trigger.node('conditions');
  if (node === undefined) return [];
  const items = source.list(node, trigger.at('conditions'), 'a list of conditions') ?? [];
  const conditions: FlowTriggerCondition[] = [];
  for (const item of items) {
    const view = source.object(item.node, item.path, 'a condition (a mapping with a type)');
    if (!view) continue;
    const written = view.string('type', true);
    if (!view.has('type') || written === '') continue;
    const condition = readCondition(view, LEGACY_CONDITION_TYPES[written] ?? written, written);
    if (condition) conditions.push(condition);
  }
  return conditions;
}

function readCondition(view: ObjectView, type: string, written: string): FlowTriggerCondition | undefined {
  switch (type) {
    case CONDITION_TYPES.ExecutionFlow:
      view.rejectUnknown(['type', 'namespace', 'flowId'], type);
      return { kind: 'ExecutionFlow', namespace: view.string('namespace', true), flowId: view.string('flowId', true) };
    case CONDITION_TYPES.ExecutionStatus: {
      view.rejectUnknown(['type', 'in', 'notIn'], type);
      const states = (key: string): string[] | undefined => readStates(view, key);
      const condition = dropUndefined({ kind: 'ExecutionStatus' as const, in: states('in'), notIn: states('notIn') });
      if (condition.in === undefined && condition.notIn === undefined) view.report('in', 'set in or notIn');
      return condition;
    }
    case CONDITION_TYPES.ExecutionNamespace:
      view.rejectUnknown(['type', 'namespace', 'prefix'], type);
      return { kind: 'ExecutionNamespace', namespace: view.string('namespace', true), prefix: view.boolean('prefix', false) };
    case CONDITION_TYPES.ExecutionLabels: {
      view.rejectUnknown(['type', 'labels'], type);
      if (!view.has('labels')) view.required('labels');
      return { kind: 'ExecutionLabels', labels: view.labels('labels') ?? {} };
    }
    case CONDITION_TYPES.ExecutionOutputs:
      view.rejectUnknown(['type', 'expression'], type);
      return { kind: 'ExecutionOutputs', expression: view.template('expression', true) };
    case CONDITION_TYPES.Expression:
      view.rejectUnknown(['type', 'expression'], type);
      return { kind: 'Expression', expression: view.template('expression', true) };
    default:
      view.report('type', `unknown condition type '${written}'`);
      return undefined;
  }
}

function readPreconditions(source: FlowSource, trigger: ObjectView): FlowTriggerPreconditions | undefined {
  const view = source.object(
    trigger.node('preconditions') as Node,
    trigger.at('preconditions'),
    'a mapping (id, flows, where, timeWindow)',
  );
  if (!view) return undefined;
  view.rejectUnknown(['id', 'flows', 'where', 'timeWindow', 'resetOnSuccess'], 'the preconditions of a Flow trigger');
  const id = view.string('id', true);
  if (view.has('id') && id !== '' && !TASK_ID_PATTERN.test(id))
    view.report('id', 'must start with a letter or digit and contain only letters, digits, _ and -');
  const flows: UpstreamFlowPrecondition[] = [];
  const flowsNode = view.node('flows');
  for (const item of flowsNode === undefined
    ? []
    : (source.list(flowsNode, view.at('flows'), 'a list of upstream flows') ?? [])) {
    const flow = source.object(item.node, item.path, 'an upstream flow (namespace, flowId, states, labels)');
    if (!flow) continue;
    flow.rejectUnknown(['namespace', 'flowId', 'states', 'labels'], 'an upstream flow of preconditions');
    flows.push(
      dropUndefined({
        namespace: flow.string('namespace', true),
        flowId: flow.string('flowId'),
        states: readStates(flow, 'states'),
        labels: flow.labels('labels'),
      }),
    );
  }
  const where: ExecutionFilterPrecondition[] = [];
  const whereNode = view.node('where');
  const filterIds = new Set<string>();
  for (const item of whereNode === undefined
    ? []
    : (source.list(whereNode, view.at('where'), 'a list of execution filters') ?? [])) {
    const entry = source.object(item.node, item.path, 'an execution filter (id, operand, filters)');
    if (!entry) continue;
    entry.rejectUnknown(['id', 'operand', 'filters'], 'an execution filter of preconditions');
    const filterId = entry.string('id', true);
    if (filterId !== '' && filterIds.has(filterId)) entry.report('id', `duplicate filter id '${filterId}'`);
    filterIds.add(filterId);
    const filters: PreconditionFilter[] = [];
    const filtersNode = entry.node('filters');
    if (filtersNode === undefined) entry.required('filters');
    for (const one of filtersNode === undefined
      ? []
      : (source.list(filtersNode, entry.at('filters'), 'a list of filters') ?? [])) {
      const filter = readPreconditionFilter(source, one.node, one.path);
      if (filter) filters.push(filter);
    }
    where.push({ id: filterId, operand: entry.enumOf('operand', ['AND', 'OR'] as const, 'AND'), filters });
  }
  if (flows.length === 0 && where.length === 0) view.report('flows', 'set flows or where: the preconditions to meet');
  return {
    id,
    flows,
    where,
    timeWindow: readTimeWindow(source, view),
    resetOnSuccess: view.boolean('resetOnSuccess', true),
  };
}

function readPreconditionFilter(source: FlowSource, node: Node, path: string): PreconditionFilter | undefined {
  const view = source.object(node, path, 'a filter (field, type, value or values)');
  if (!view) return undefined;
  view.rejectUnknown(['field', 'type', 'value', 'values'], 'a precondition filter');
  if (!view.has('field')) view.required('field');
  if (!view.has('type')) view.required('type');
  const field = view.enumOf('field', FILTER_FIELDS);
  const type = view.enumOf('type', FILTER_TYPES);
  const value = view.template('value');
  const values = view.stringList('values');
  if (field === undefined || type === undefined) return undefined;
  const needsValues = type === 'IN' || type === 'NOT_IN';
  const needsValue = !needsValues && !['IS_TRUE', 'IS_FALSE', 'IS_NULL', 'IS_NOT_NULL'].includes(type);
  if (needsValues && values === undefined) view.report('values', `required with type ${type}`);
  if (needsValue && value === undefined) view.report('value', `required with type ${type}`);
  if (field === 'EXPRESSION' && value === undefined && !needsValue)
    view.report('value', 'required with field EXPRESSION: the expression');
  if (type === 'REGEX' && value !== undefined) {
    try {
      new RegExp(value);
    } catch {
      view.report('value', 'must be a regular expression');
    }
  }
  return dropUndefined({ field, type, value, values });
}

function readTimeWindow(source: FlowSource, preconditions: ObjectView): PreconditionTimeWindow {
  const fallback: PreconditionTimeWindow = { type: 'DURATION_WINDOW', windowMs: DAY_MS, advanceMs: 0 };
  const node = preconditions.node('timeWindow');
  if (node === undefined) return fallback;
  const view = source.object(node, preconditions.at('timeWindow'), 'a time window (type, window, ...)');
  if (!view) return fallback;
  const type = view.enumOf('type', WINDOW_TYPES, 'DURATION_WINDOW');
  const only = (keys: string[]) => view.rejectUnknown(['type', ...keys], `a time window of type ${type}`);
  const timeOfDay = (key: string): number => {
    const text = view.string(key, true);
    if (!TIME_OF_DAY.test(text)) {
      if (text !== '') view.report(key, 'must be a time of day HH:MM or HH:MM:SS');
      return 0;
    }
    const [hours, minutes, seconds] = text.split(':').map(Number);
    return hours * 3600 + minutes * 60 + (seconds ?? 0);
  };
  switch (type) {
    case 'DURATION_WINDOW': {
      only(['window', 'windowAdvance']);
      const windowMs = view.duration('window', { positive: true }) ?? DAY_MS;
      const advanceMs = view.duration('windowAdvance') ?? 0;
      if (advanceMs < 0 || advanceMs >= Math.max(windowMs, 1)) view.report('windowAdvance', 'must be shorter than the window');
      return { type, windowMs, advanceMs };
    }
    case 'SLIDING_WINDOW':
      only(['window']);
      return { type, windowMs: view.duration('window', { positive: true }) ?? DAY_MS };
    case 'DAILY_TIME_DEADLINE':
      only(['deadline']);
      return { type, deadlineSecond: timeOfDay('deadline') };
    case 'DAILY_TIME_WINDOW': {
      only(['startTime', 'endTime']);
      const startSecond = timeOfDay('startTime');
      const endSecond = timeOfDay('endTime');
      if (view.has('startTime') && view.has('endTime') && endSecond <= startSecond)
        view.report('endTime', 'must be later than startTime');
      return { type, startSecond, endSecond };
    }
  }
}

function readStates(view: ObjectView, key: string): string[] | undefined {
  const list = view.stringList(key);
  list?.forEach((state, index) => {
    if (!(EXECUTION_RECORD_STATES as readonly string[]).includes(state)) {
      view.source.report(`${view.at(key)}[${index}]`, `unknown execution state '${state}'`, view.position(key));
    }
  });
  return list;
}

function readScheduleConditions(source: FlowSource, trigger: ObjectView): ScheduleCondition[] {
  const node = trigger.node('conditions');
  if (node === undefined) return [];
  const items = source.list(node, trigger.at('conditions'), 'a list of conditions') ?? [];
  const conditions: ScheduleCondition[] = [];
  for (const item of items) {
    const view = source.object(item.node, item.path, 'a condition (a mapping with a type)');
    if (!view) continue;
    const type = view.string('type', true);
    if (!view.has('type') || type === '') continue;
    const condition = readScheduleCondition(view, type);
    if (condition) conditions.push(condition);
  }
  return conditions;
}

function readScheduleCondition(view: ObjectView, type: string): ScheduleCondition | undefined {
  const pattern = (key: string, rule: RegExp, what: string): string | undefined => {
    const value = view.string(key);
    if (value !== undefined && !rule.test(value)) view.report(key, `must be ${what}`);
    return value;
  };
  switch (PUBLIC_HOLIDAY_ALIASES.includes(type) ? SCHEDULE_CONDITION_TYPES.PublicHoliday : type) {
    case SCHEDULE_CONDITION_TYPES.PublicHoliday: {
      view.rejectUnknown(['type', 'country', 'subDivision', 'date'], type);
      const country = view.string('country');
      if (!view.has('country')) view.required('country');
      const subDivision = view.string('subDivision');
      const date = view.string('date');
      // Kestra's default; conditions are read without rendering, so no other date can be tested.
      if (date !== undefined && !/^\{\{\s*trigger\.date\s*\}\}$/.test(date.trim())) {
        view.report('date', "only '{{ trigger.date }}' (the default) is supported: the schedule's date is tested");
      }
      if (country === undefined) return undefined;
      const unknown = unknownHolidayCalendar(country, subDivision);
      if (unknown !== undefined)
        view.report(subDivision !== undefined && !unknown.startsWith('unknown country') ? 'subDivision' : 'country', unknown);
      return dropUndefined({ kind: 'PublicHoliday' as const, country: country.toUpperCase(), subDivision });
    }
    case SCHEDULE_CONDITION_TYPES.DayWeek:
      view.rejectUnknown(['type', 'dayOfWeek'], type);
      return { kind: 'DayWeek', dayOfWeek: requiredEnum(view, 'dayOfWeek', DAYS_OF_WEEK) };
    case SCHEDULE_CONDITION_TYPES.DayWeekInMonth:
      view.rejectUnknown(['type', 'dayOfWeek', 'dayInMonth'], type);
      return {
        kind: 'DayWeekInMonth',
        dayOfWeek: requiredEnum(view, 'dayOfWeek', DAYS_OF_WEEK),
        dayInMonth: requiredEnum(view, 'dayInMonth', DAYS_IN_MONTH),
      };
    case SCHEDULE_CONDITION_TYPES.Weekend:
      view.rejectUnknown(['type'], type);
      return { kind: 'Weekend' };
    case SCHEDULE_CONDITION_TYPES.DateTimeBetween:
    case SCHEDULE_CONDITION_TYPES.TimeBetween: {
      view.rejectUnknown(['type', 'after', 'before'], type);
      const dateTime = type === SCHEDULE_CONDITION_TYPES.DateTimeBetween;
      const [rule, what] = dateTime
        ? [DATE_TIME_WITH_OFFSET, 'an ISO date-time with an offset, like 2026-01-31T09:00:00+01:00']
        : [TIME_OF_DAY, 'a time of day HH:MM or HH:MM:SS'];
      const after = pattern('after', rule, what);
      const before = pattern('before', rule, what);
      if (after === undefined && before === undefined) view.report('after', 'set after or before');
      return dropUndefined({ kind: dateTime ? ('DateTimeBetween' as const) : ('TimeBetween' as const), after, before });
    }
    default:
      view.report('type', `unknown schedule condition type '${type}'`);
      return undefined;
  }
}

function requiredEnum<T extends string>(view: ObjectView, key: string, allowed: readonly T[]): T {
  if (!view.has(key)) view.required(key);
  return view.enumOf(key, allowed) ?? allowed[0];
}

function isKnownTimeZone(timeZone: string): boolean {
  try {
    // Intl knows the IANA zones; it throws a RangeError for anything else.
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}
