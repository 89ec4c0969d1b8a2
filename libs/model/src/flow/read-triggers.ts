// Triggers and the conditions of Flow triggers.

import type { Node } from 'yaml';
import { EXECUTION_RECORD_STATES } from '../records/states';
import type { DayInMonth, DayOfWeekName, FlowTriggerCondition, ScheduleCondition, Trigger, TriggerCommon } from './flow.types';
import { cronProblem } from './cron';
import { FlowSource, ObjectView } from './flow-source';
import { dropUndefined, TASK_ID_PATTERN } from './read-tasks';
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
  [TRIGGER_TYPES.Flow]: ['conditions', 'inputs'],
  [TRIGGER_TYPES.Webhook]: ['key'],
  [TRIGGER_TYPES.HttpPolling]: ['uri', 'method', 'interval', 'responseCondition'],
};
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const RECOVER_MODES = ['ALL', 'LAST', 'NONE'] as const;
const DAYS_OF_WEEK: readonly DayOfWeekName[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const DAYS_IN_MONTH: readonly DayInMonth[] = ['FIRST', 'SECOND', 'THIRD', 'FOURTH', 'LAST'];
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export function readTriggers(source: FlowSource, flow: ObjectView): Trigger[] {
  const node = flow.node('triggers');
  if (node === undefined) return [];
  const items = source.list(node, flow.at('triggers'), 'a list of triggers') ?? [];
  const ids = new Map<string, string>();
  const triggers: Trigger[] = [];
  for (const item of items) {
    const trigger = readTrigger(source, item.node, item.path, ids);
    if (trigger) triggers.push(trigger);
  }
  return triggers;
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
    case TRIGGER_TYPES.Flow:
      return { ...common, kind: 'Flow', conditions: readConditions(source, view) };
    case TRIGGER_TYPES.Webhook: {
      const key = view.string('key', true);
      if (key.length > 256) view.report('key', 'must be at most 256 characters');
      return { ...common, kind: 'Webhook', key };
    }
    case TRIGGER_TYPES.HttpPolling:
      return {
        ...common,
        kind: 'HttpPolling',
        uri: view.template('uri', true),
        method: view.enumOf('method', HTTP_METHODS, 'GET'),
        // Kestra's defaults: poll every minute, succeed on any status below 400.
        intervalMs: view.duration('interval', { positive: true }) ?? 60_000,
        responseCondition: view.template('responseCondition') ?? '{{ response.statusCode < 400 }}',
      };
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
    case CONDITION_TYPES.Expression:
      view.rejectUnknown(['type', 'expression'], type);
      return { kind: 'Expression', expression: view.template('expression', true) };
    default:
      view.report('type', `unknown condition type '${written}'`);
      return undefined;
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
