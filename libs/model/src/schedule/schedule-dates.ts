// When a Schedule trigger fires: its cron dates in its time zone, what a
// scheduler does with dates it missed, its conditions and `stopAfter`. Pure:
// the caller passes `now`, so the rules are tested on a virtual clock.

import { Cron } from 'croner';
import type { ScheduleCondition, ScheduleTrigger } from '../flow/flow.types';
import { localParts } from './local-time';
import { isPublicHoliday } from './public-holidays';

/** What a scheduler keeps of a Schedule between evaluations. */
export interface ScheduleState {
  /** The next date to evaluate; absent for a trigger never evaluated (new, or its cron changed). */
  readonly nextDate?: Date;
  /** The state of the last execution this trigger started, when known (for `stopAfter`). */
  readonly lastExecutionState?: string;
}

/** One firing: the date it stands for and its neighbours on the cron (`trigger.date/next/previous`). */
export interface ScheduleFiring {
  readonly date: Date;
  readonly next?: Date;
  readonly previous?: Date;
}

export interface ScheduleEvaluation {
  /** Executions to start, oldest first. */
  readonly firings: readonly ScheduleFiring[];
  /** The date to evaluate next; absent when the cron has no future date. */
  readonly nextDate?: Date;
  /** `stopAfter` matched the last execution: the trigger disables itself and fires nothing. */
  readonly stopped: boolean;
}

export interface ScheduleOptions {
  /** At most this many firings per evaluation (ALL after a long downtime catches up over several). Default 1000. */
  readonly maxFirings?: number;
  /** With `recoverMissedSchedules: NONE`, a due date later than this is missed, not fired. Default 5000 ms. */
  readonly lateToleranceMs?: number;
}

const DEFAULT_MAX_FIRINGS = 1000;
const DEFAULT_LATE_TOLERANCE_MS = 5000;

type ScheduleSpec = Pick<ScheduleTrigger, 'cron' | 'timezone' | 'withSeconds'>;

/**
 * A schedule's cron, read in its time zone, with the dates asked of it
 * remembered: many schedules share a cron (every minute, every hour), and a
 * scheduler evaluating thousands of them at one date asks the same questions
 * thousands of times. The answers depend only on the spec and the date.
 */
class ScheduleCron {
  private readonly cron: Cron;
  private readonly nextAfter = new Map<number, Date | null>();
  private readonly previousBefore = new Map<number, Date | undefined>();

  constructor(spec: ScheduleSpec) {
    // `?` (any) is read as `*`.
    this.cron = new Cron(spec.cron.trim().replace(/\?/g, '*'), {
      timezone: spec.timezone,
      mode: spec.withSeconds ? '6-part' : '5-part',
    });
  }

  /** The first cron date strictly after `after`. */
  nextRun(after: Date): Date | null {
    return copyOf(remembered(this.nextAfter, after.getTime(), () => this.cron.nextRun(after)));
  }

  /** The last cron date strictly before `before`. */
  previousRun(before: Date): Date | undefined {
    return copyOf(remembered(this.previousBefore, before.getTime(), () => this.cron.previousRuns(1, before)[0])) ?? undefined;
  }
}

/** Dates remembered per cron; a cache that fills up starts afresh. */
const REMEMBERED_DATES = 256;
/** Crons remembered by spec; likewise. */
const REMEMBERED_CRONS = 4096;
const crons = new Map<string, ScheduleCron>();

function remembered<T>(cache: Map<number, T>, key: number, compute: () => T): T {
  if (cache.has(key)) return cache.get(key) as T;
  const value = compute();
  if (cache.size >= REMEMBERED_DATES) cache.clear();
  cache.set(key, value);
  return value;
}

/** Dates are handed out to callers (who may change them): each gets its own copy. */
function copyOf(date: Date | null | undefined): Date | null {
  return date === null || date === undefined ? null : new Date(date.getTime());
}

/** The trigger's cron, read in its time zone (one per spec, shared). */
function cronOf(spec: ScheduleSpec): ScheduleCron {
  const key = `${spec.withSeconds ? 6 : 5}|${spec.timezone}|${spec.cron}`;
  let cron = crons.get(key);
  if (cron === undefined) {
    if (crons.size >= REMEMBERED_CRONS) crons.clear();
    cron = new ScheduleCron(spec);
    crons.set(key, cron);
  }
  return cron;
}

/** The first cron date strictly after `after`. */
export function nextScheduleDate(trigger: ScheduleSpec, after: Date): Date | undefined {
  return cronOf(trigger).nextRun(after) ?? undefined;
}

/** The last cron date strictly before `before`. */
export function previousScheduleDate(trigger: ScheduleSpec, before: Date): Date | undefined {
  return cronOf(trigger).previousRun(before);
}

/** Cron dates in `[from, to)` that meet the conditions, oldest first, at most `limit` (backfills). */
export function scheduleDatesBetween(
  trigger: Pick<ScheduleTrigger, 'cron' | 'timezone' | 'withSeconds' | 'conditions'>,
  from: Date,
  to: Date,
  limit: number,
): ScheduleFiring[] {
  const cron = cronOf(trigger);
  const firings: ScheduleFiring[] = [];
  let date = cron.nextRun(new Date(from.getTime() - 1));
  while (date !== null && date < to && firings.length < limit) {
    if (meetsConditions(trigger, date)) firings.push(firingAt(cron, date));
    date = cron.nextRun(date);
  }
  return firings;
}

/** Where a walk over a schedule's dates stopped: the firings it found and the first date it did not look at. */
export interface ScheduleDatesScan {
  readonly firings: ScheduleFiring[];
  /** The first cron date not examined yet; absent when none is left before the end. */
  readonly resumeAt?: Date;
}

/**
 * Cron dates from `from` (inclusive) to `to` (inclusive) that meet the
 * conditions, oldest first: at most `maxFirings` of them, after looking at
 * most at `maxScanned` dates (conditions that fail most dates never make one
 * walk long). `resumeAt` is where the next walk starts.
 */
export function scanScheduleDates(
  trigger: Pick<ScheduleTrigger, 'cron' | 'timezone' | 'withSeconds' | 'conditions'>,
  from: Date,
  to: Date,
  maxFirings: number,
  maxScanned: number,
): ScheduleDatesScan {
  const cron = cronOf(trigger);
  const firings: ScheduleFiring[] = [];
  let date = cron.nextRun(new Date(from.getTime() - 1));
  let scanned = 0;
  while (date !== null && date <= to && firings.length < maxFirings && scanned < maxScanned) {
    if (meetsConditions(trigger, date)) firings.push(firingAt(cron, date));
    scanned += 1;
    date = cron.nextRun(date);
  }
  return { firings, ...(date !== null && date <= to ? { resumeAt: date } : {}) };
}

/**
 * Evaluates a Schedule at `now`: the dates due since `state.nextDate` (per
 * `recoverMissedSchedules` and the conditions) and the next date to evaluate.
 * A trigger never evaluated fires nothing: its first date is the next one after `now`.
 */
export function evaluateSchedule(
  trigger: ScheduleTrigger,
  state: ScheduleState,
  now: Date,
  options: ScheduleOptions = {},
): ScheduleEvaluation {
  if (state.lastExecutionState !== undefined && trigger.stopAfter.includes(state.lastExecutionState)) {
    return { firings: [], ...defined(state.nextDate), stopped: true };
  }
  const cron = cronOf(trigger);
  if (state.nextDate === undefined) return { firings: [], ...defined(cron.nextRun(now)), stopped: false };
  if (state.nextDate > now) return { firings: [], nextDate: state.nextDate, stopped: false };

  const maxFirings = options.maxFirings ?? DEFAULT_MAX_FIRINGS;
  let due: Date[];
  let nextDate: Date | null;
  if (trigger.recoverMissedSchedules === 'ALL') {
    due = [];
    let date: Date | null = state.nextDate;
    while (date !== null && date <= now && due.length < maxFirings) {
      due.push(date);
      date = cron.nextRun(date);
    }
    nextDate = date;
  } else {
    // Only the latest due date can fire: found directly, not by walking a long downtime.
    // Cron dates are whole seconds, and the library looks back from whole seconds: the latest date <= now.
    const latest = cron.previousRun(new Date(Math.floor(now.getTime() / 1000) * 1000 + 1000)) ?? state.nextDate;
    const tolerance = options.lateToleranceMs ?? DEFAULT_LATE_TOLERANCE_MS;
    const missed = trigger.recoverMissedSchedules === 'NONE' && now.getTime() - latest.getTime() > tolerance;
    due = missed || latest < state.nextDate ? [] : [latest];
    nextDate = cron.nextRun(now);
  }
  const firings = due.filter((date) => meetsConditions(trigger, date)).map((date) => firingAt(cron, date));
  return { firings, ...defined(nextDate), stopped: false };
}

function firingAt(cron: ScheduleCron, date: Date): ScheduleFiring {
  return { date, ...optional('next', cron.nextRun(date)), ...optional('previous', cron.previousRun(date)) };
}

function defined(nextDate: Date | null | undefined): { nextDate?: Date } {
  return nextDate === null || nextDate === undefined ? {} : { nextDate };
}

function optional<K extends string>(key: K, value: Date | null | undefined): Partial<Record<K, Date>> {
  return value === null || value === undefined ? {} : ({ [key]: value } as Record<K, Date>);
}

// ---- Conditions ------------------------------------------------------------------

const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];
const ORDINALS = ['FIRST', 'SECOND', 'THIRD', 'FOURTH'];

/** Every condition holds for `date`, read in the trigger's time zone. */
export function meetsConditions(trigger: Pick<ScheduleTrigger, 'timezone' | 'conditions'>, date: Date): boolean {
  return trigger.conditions.every((condition) => holds(condition, date, trigger.timezone));
}

function holds(condition: ScheduleCondition, date: Date, timeZone: string): boolean {
  const local = localParts(date, timeZone);
  switch (condition.kind) {
    case 'DayWeek':
      return WEEKDAYS[local.weekday] === condition.dayOfWeek;
    case 'Weekend':
      return local.weekday === 0 || local.weekday === 6;
    case 'DayWeekInMonth': {
      if (WEEKDAYS[local.weekday] !== condition.dayOfWeek) return false;
      if (condition.dayInMonth === 'LAST') return local.day + 7 > daysInMonth(local.year, local.month);
      return Math.floor((local.day - 1) / 7) === ORDINALS.indexOf(condition.dayInMonth);
    }
    case 'DateTimeBetween': {
      const time = date.getTime();
      if (condition.after !== undefined && time < Date.parse(condition.after)) return false;
      return condition.before === undefined || time < Date.parse(condition.before);
    }
    case 'PublicHoliday':
      return isPublicHoliday(condition.country, condition.subDivision, local);
    case 'TimeBetween': {
      const seconds = local.hour * 3600 + local.minute * 60 + local.second;
      const after = condition.after === undefined ? undefined : secondsOfDay(condition.after);
      const before = condition.before === undefined ? undefined : secondsOfDay(condition.before);
      if (after !== undefined && before !== undefined && after > before) return seconds >= after || seconds < before;
      return (after === undefined || seconds >= after) && (before === undefined || seconds < before);
    }
  }
}

function secondsOfDay(text: string): number {
  const [hours, minutes, seconds] = text.split(':').map(Number);
  return hours * 3600 + minutes * 60 + (seconds ?? 0);
}

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one (month is 1-based here, 0-based for Date.UTC).
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
