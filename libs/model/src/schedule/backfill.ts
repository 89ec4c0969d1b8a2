// A backfill replays a Schedule over a past range of dates, paced: each step
// fires a few dates, and the next step comes a while later, so a long range
// never floods the executor. Pure: the caller passes `now`.

import type { ScheduleTrigger } from '../flow/flow.types';
import { SYSTEM_LABEL_PREFIX } from '../flow/system-labels';
import { type ScheduleFiring, scanScheduleDates } from './schedule-dates';

/** The label every execution a backfill started carries (`true`), beside the trigger's own label. */
export const BACKFILL_LABEL = 'system.backfill';

/** Where a backfill stands. */
export interface BackfillProgress {
  /** Identifies this backfill among those the trigger had (a write for an older one is dropped). */
  readonly id: string;
  /** First date of the range (inclusive). */
  readonly start: Date;
  /** Last date of the range (inclusive). */
  readonly end: Date;
  /** The first date not fired yet; `end` or later once finished. */
  readonly currentDate: Date;
  readonly paused: boolean;
  /** Executions it fired so far. */
  readonly done: number;
  /** When its next step is due; null while paused or once finished. */
  readonly dueAt: Date | null;
}

export interface BackfillPacing {
  /** Dates fired per step, at most. */
  readonly maxPerStep: number;
  /** Time between two steps of one backfill. */
  readonly stepMs: number;
}

export interface BackfillStep {
  /** Executions to start now, oldest first. */
  readonly firings: readonly ScheduleFiring[];
  readonly currentDate: Date;
  readonly finished: boolean;
  /** When the following step is due; null once finished. */
  readonly dueAt: Date | null;
}

/** Dates a step looks at for each one it may fire: conditions that fail most dates still end a step quickly. */
const SCANNED_PER_FIRING = 100;

/**
 * The next step of a backfill at `now`: the dates from its current date on,
 * up to its end, at most `pacing.maxPerStep` of them. Undefined when no step
 * is due (paused, finished, or its next step is later).
 */
export function stepBackfill(
  trigger: Pick<ScheduleTrigger, 'cron' | 'timezone' | 'withSeconds' | 'conditions'>,
  backfill: BackfillProgress,
  now: Date,
  pacing: BackfillPacing,
): BackfillStep | undefined {
  if (backfill.paused || backfill.dueAt === null || backfill.dueAt > now) return undefined;
  const maxPerStep = Math.max(1, Math.floor(pacing.maxPerStep));
  // A range is in the past when it is created; never fire a date before its time all the same.
  const until = backfill.end < now ? backfill.end : now;
  const scan = scanScheduleDates(trigger, backfill.currentDate, until, maxPerStep, maxPerStep * SCANNED_PER_FIRING);
  if (scan.resumeAt === undefined) {
    return { firings: scan.firings, currentDate: backfill.end, finished: true, dueAt: null };
  }
  return {
    firings: scan.firings,
    currentDate: scan.resumeAt,
    finished: false,
    dueAt: new Date(now.getTime() + pacing.stepMs),
  };
}

/** What a user asks for when starting a backfill. */
export interface BackfillRequest {
  readonly start: Date;
  readonly end?: Date;
  readonly labels?: Readonly<Record<string, string>>;
}

export type BackfillRange =
  | { readonly ok: true; readonly start: Date; readonly end: Date }
  | { readonly ok: false; readonly problems: readonly { readonly path: string; readonly message: string }[] };

/**
 * Checks a backfill request at `now`: a past range (`end` defaults to now),
 * start not after end, and no label of Lanner's own.
 */
export function backfillRange(request: BackfillRequest, now: Date): BackfillRange {
  const problems: { path: string; message: string }[] = [];
  const end = request.end ?? now;
  if (request.start > now) problems.push({ path: 'start', message: 'must not be in the future' });
  if (request.end !== undefined && request.end > now) problems.push({ path: 'end', message: 'must not be in the future' });
  if (request.start > end) problems.push({ path: 'start', message: 'must not be after end' });
  for (const key of Object.keys(request.labels ?? {})) {
    if (key.startsWith(SYSTEM_LABEL_PREFIX)) {
      problems.push({ path: `labels.${key}`, message: `labels starting with '${SYSTEM_LABEL_PREFIX}' are reserved` });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, start: request.start, end };
}
