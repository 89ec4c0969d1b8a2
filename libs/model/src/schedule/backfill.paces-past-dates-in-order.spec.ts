import type { ScheduleTrigger } from '../flow/flow.types';
import { type BackfillProgress, backfillRange, stepBackfill } from './backfill';

const at = (iso: string): Date => new Date(iso);

function schedule(cron: string, extra: Partial<ScheduleTrigger> = {}): ScheduleTrigger {
  return {
    id: 's',
    type: 'io.kestra.plugin.core.trigger.Schedule',
    kind: 'Schedule',
    disabled: false,
    cron,
    timezone: 'Etc/UTC',
    withSeconds: false,
    recoverMissedSchedules: 'ALL',
    stopAfter: [],
    conditions: [],
    ...extra,
  };
}

function backfill(start: string, end: string, extra: Partial<BackfillProgress> = {}): BackfillProgress {
  return { id: 'b', start: at(start), end: at(end), currentDate: at(start), paused: false, done: 0, dueAt: at(start), ...extra };
}

/** Steps a backfill on a virtual clock, one step per `stepMs`, until it finishes; returns each step's dates. */
function runToEnd(trigger: ScheduleTrigger, progress: BackfillProgress, now: string, maxPerStep: number): string[][] {
  const steps: string[][] = [];
  let state: BackfillProgress = { ...progress, dueAt: at(now) };
  let clock = Date.parse(now);
  for (let guard = 0; guard < 1000 && state.dueAt !== null; guard += 1) {
    const step = stepBackfill(trigger, state, new Date(clock), { maxPerStep, stepMs: 1000 });
    if (step === undefined) {
      clock += 100;
      continue;
    }
    steps.push(step.firings.map((firing) => firing.date.toISOString()));
    state = { ...state, currentDate: step.currentDate, dueAt: step.dueAt, done: state.done + step.firings.length };
  }
  return steps;
}

describe('stepBackfill', () => {
  it('fires every past date of the range, oldest first, both ends included, at most maxPerStep per step', () => {
    const steps = runToEnd(
      schedule('* * * * *'),
      backfill('2026-03-01T10:00:00Z', '2026-03-01T10:09:00Z'),
      '2026-03-01T12:00:00Z',
      4,
    );
    expect(steps.map((dates) => dates.length)).toEqual([4, 4, 2]);
    expect(steps.flat()).toEqual(Array.from({ length: 10 }, (_, minute) => `2026-03-01T10:0${minute}:00.000Z`));
  });

  it('waits stepMs between steps: a step asked for earlier fires nothing', () => {
    const trigger = schedule('* * * * *');
    const progress = backfill('2026-03-01T10:00:00Z', '2026-03-01T10:30:00Z', { dueAt: at('2026-03-01T12:00:00Z') });
    const first = stepBackfill(trigger, progress, at('2026-03-01T12:00:00Z'), { maxPerStep: 5, stepMs: 1000 });
    expect(first?.dueAt).toEqual(at('2026-03-01T12:00:01Z'));
    const next = { ...progress, currentDate: first?.currentDate ?? progress.currentDate, dueAt: first?.dueAt ?? null };
    expect(stepBackfill(trigger, next, at('2026-03-01T12:00:00.500Z'), { maxPerStep: 5, stepMs: 1000 })).toBeUndefined();
    expect(
      stepBackfill(trigger, next, at('2026-03-01T12:00:01Z'), { maxPerStep: 5, stepMs: 1000 })?.firings.map((f) =>
        f.date.toISOString(),
      ),
    ).toEqual([
      '2026-03-01T10:05:00.000Z',
      '2026-03-01T10:06:00.000Z',
      '2026-03-01T10:07:00.000Z',
      '2026-03-01T10:08:00.000Z',
      '2026-03-01T10:09:00.000Z',
    ]);
  });

  it('a paused backfill fires nothing; resumed, it goes on from the date it had reached', () => {
    const trigger = schedule('0 * * * *');
    const paused = backfill('2026-03-01T00:00:00Z', '2026-03-01T05:00:00Z', {
      currentDate: at('2026-03-01T03:00:00Z'),
      paused: true,
      dueAt: null,
    });
    expect(stepBackfill(trigger, paused, at('2026-03-02T00:00:00Z'), { maxPerStep: 10, stepMs: 1000 })).toBeUndefined();
    const resumed = stepBackfill(
      trigger,
      { ...paused, paused: false, dueAt: at('2026-03-02T00:00:00Z') },
      at('2026-03-02T00:00:00Z'),
      {
        maxPerStep: 10,
        stepMs: 1000,
      },
    );
    expect(resumed?.firings.map((firing) => firing.date.toISOString())).toEqual([
      '2026-03-01T03:00:00.000Z',
      '2026-03-01T04:00:00.000Z',
      '2026-03-01T05:00:00.000Z',
    ]);
    expect(resumed?.finished).toBe(true);
    expect(resumed?.dueAt).toBeNull();
  });

  it('each firing carries the cron neighbours of its past date as trigger.next and trigger.previous', () => {
    const step = stepBackfill(
      schedule('*/15 * * * *'),
      backfill('2026-03-01T10:15:00Z', '2026-03-01T10:15:00Z'),
      at('2026-03-02T00:00:00Z'),
      { maxPerStep: 10, stepMs: 1000 },
    );
    expect(step?.firings).toEqual([
      { date: at('2026-03-01T10:15:00Z'), next: at('2026-03-01T10:30:00Z'), previous: at('2026-03-01T10:00:00Z') },
    ]);
  });

  it('skips dates that fail a condition, and a step over dates that all fail still moves on', () => {
    const weekendsOnly = schedule('0 12 * * *', { conditions: [{ kind: 'Weekend' }] });
    const steps = runToEnd(weekendsOnly, backfill('2026-03-02T00:00:00Z', '2026-03-15T23:59:59Z'), '2026-04-01T00:00:00Z', 1);
    // 2026-03-07/08 and 14/15 are the weekends of that range.
    expect(steps.flat()).toEqual([
      '2026-03-07T12:00:00.000Z',
      '2026-03-08T12:00:00.000Z',
      '2026-03-14T12:00:00.000Z',
      '2026-03-15T12:00:00.000Z',
    ]);
  });

  it('never fires a date after now, even when the range reaches past it', () => {
    const step = stepBackfill(
      schedule('* * * * *'),
      backfill('2026-03-01T10:00:00Z', '2026-03-01T11:00:00Z'),
      at('2026-03-01T10:02:30Z'),
      { maxPerStep: 100, stepMs: 1000 },
    );
    expect(step?.firings.map((firing) => firing.date.toISOString())).toEqual([
      '2026-03-01T10:00:00.000Z',
      '2026-03-01T10:01:00.000Z',
      '2026-03-01T10:02:00.000Z',
    ]);
  });
});

describe('backfillRange', () => {
  const now = at('2026-03-01T12:00:00Z');

  it('ends now when no end is given', () => {
    expect(backfillRange({ start: at('2026-03-01T10:00:00Z') }, now)).toEqual({
      ok: true,
      start: at('2026-03-01T10:00:00Z'),
      end: now,
    });
  });

  it('names each problem: a future date, a start after the end, a reserved label', () => {
    expect(
      backfillRange(
        { start: at('2026-03-01T11:00:00Z'), end: at('2026-03-01T10:00:00Z'), labels: { 'system.triggerId': 'x', team: 'a' } },
        now,
      ),
    ).toEqual({
      ok: false,
      problems: [
        { path: 'start', message: 'must not be after end' },
        { path: 'labels.system.triggerId', message: "labels starting with 'system.' are reserved" },
      ],
    });
    expect(backfillRange({ start: at('2026-03-02T00:00:00Z'), end: at('2026-03-03T00:00:00Z') }, now)).toEqual({
      ok: false,
      problems: [
        { path: 'start', message: 'must not be in the future' },
        { path: 'end', message: 'must not be in the future' },
      ],
    });
  });
});
