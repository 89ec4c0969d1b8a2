import type { ScheduleCondition, ScheduleTrigger } from '../flow/flow.types';
import { evaluateSchedule, meetsConditions, scheduleDatesBetween } from './schedule-dates';

const at = (iso: string): Date => new Date(iso);
const iso = (dates: readonly { date: Date }[]): string[] => dates.map((firing) => firing.date.toISOString());

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

/** Evaluates every `stepMs` from `from` to `to` on a virtual clock, carrying the state; returns every firing. */
function run(trigger: ScheduleTrigger, from: string, to: string, stepMs: number): string[] {
  let state = {};
  const fired: string[] = [];
  for (let now = Date.parse(from); now <= Date.parse(to); now += stepMs) {
    const result = evaluateSchedule(trigger, state, new Date(now));
    fired.push(...iso(result.firings));
    state = result.nextDate === undefined ? {} : { nextDate: result.nextDate };
  }
  return fired;
}

describe('evaluateSchedule', () => {
  it('a trigger never evaluated fires nothing and waits for its next date', () => {
    const result = evaluateSchedule(schedule('0 * * * *'), {}, at('2026-03-01T10:20:00Z'));
    expect(result).toEqual({ firings: [], nextDate: at('2026-03-01T11:00:00Z'), stopped: false });
  });

  it('fires a due date once, with its next and previous dates', () => {
    const result = evaluateSchedule(
      schedule('0 * * * *'),
      { nextDate: at('2026-03-01T11:00:00Z') },
      at('2026-03-01T11:00:00.400Z'),
    );
    expect(result.firings).toEqual([
      { date: at('2026-03-01T11:00:00Z'), next: at('2026-03-01T12:00:00Z'), previous: at('2026-03-01T10:00:00Z') },
    ]);
    expect(result.nextDate).toEqual(at('2026-03-01T12:00:00Z'));
    const again = evaluateSchedule(schedule('0 * * * *'), { nextDate: result.nextDate }, at('2026-03-01T11:00:01Z'));
    expect(again.firings).toEqual([]);
  });

  it('6 fields with withSeconds: every second, each second once, evaluated every 250 ms', () => {
    const fired = run(schedule('* * * * * *', { withSeconds: true }), '2026-03-01T00:00:00Z', '2026-03-01T00:00:05Z', 250);
    expect(fired).toEqual([
      '2026-03-01T00:00:01.000Z',
      '2026-03-01T00:00:02.000Z',
      '2026-03-01T00:00:03.000Z',
      '2026-03-01T00:00:04.000Z',
      '2026-03-01T00:00:05.000Z',
    ]);
  });

  it('6 fields read the first as seconds', () => {
    const fired = run(schedule('*/20 30 * * * *', { withSeconds: true }), '2026-03-01T00:29:00Z', '2026-03-01T01:00:00Z', 1000);
    expect(fired).toEqual(['2026-03-01T00:30:00.000Z', '2026-03-01T00:30:20.000Z', '2026-03-01T00:30:40.000Z']);
  });

  it('the 31st fires only in months that have one; L is the last day of each month', () => {
    const thirtyFirst = scheduleDatesBetween(schedule('0 0 31 * *'), at('2026-01-01T00:00:00Z'), at('2026-08-01T00:00:00Z'), 100);
    expect(iso(thirtyFirst)).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
      '2026-05-31T00:00:00.000Z',
      '2026-07-31T00:00:00.000Z',
    ]);
    const last = scheduleDatesBetween(schedule('0 0 L * *'), at('2028-01-15T00:00:00Z'), at('2028-04-15T00:00:00Z'), 100);
    expect(iso(last)).toEqual(['2028-01-31T00:00:00.000Z', '2028-02-29T00:00:00.000Z', '2028-03-31T00:00:00.000Z']);
  });

  it('29 February fires in leap years only', () => {
    const dates = scheduleDatesBetween(schedule('0 12 29 2 *'), at('2025-01-01T00:00:00Z'), at('2033-01-01T00:00:00Z'), 100);
    expect(iso(dates)).toEqual(['2028-02-29T12:00:00.000Z', '2032-02-29T12:00:00.000Z']);
  });

  describe('in a time zone with daylight saving (Europe/Paris)', () => {
    const paris = (cron: string): ScheduleTrigger => schedule(cron, { timezone: 'Europe/Paris' });

    it('02:30 on the night the clocks skip 02:00-03:00 fires once, at 03:00 local, and normally around it', () => {
      const dates = scheduleDatesBetween(paris('30 2 * * *'), at('2026-03-28T00:00:00Z'), at('2026-03-31T00:00:00Z'), 10);
      // 28 March 02:30 CET = 01:30Z; 29 March has no 02:30 (it fires at 03:00 CEST = 01:00Z); 30 March 02:30 CEST = 00:30Z.
      expect(iso(dates)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    });

    it('02:30 on the night the clocks repeat 02:00-03:00 fires once', () => {
      const dates = scheduleDatesBetween(paris('30 2 * * *'), at('2026-10-24T00:00:00Z'), at('2026-10-27T00:00:00Z'), 10);
      expect(iso(dates)).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    });

    it('an hourly schedule has 23 firings on the short day and 25 on the long day, each instant once', () => {
      const short = run(paris('0 * * * *'), '2026-03-28T22:59:00Z', '2026-03-29T21:59:00Z', 60_000);
      expect(short).toHaveLength(23);
      const long = run(paris('0 * * * *'), '2026-10-24T21:59:00Z', '2026-10-25T22:59:00Z', 60_000);
      expect(long).toHaveLength(25);
      expect(new Set(long).size).toBe(25);
    });
  });

  describe('recoverMissedSchedules after a downtime (state kept at 10:00, scheduler back at 10:05:30)', () => {
    const state = { nextDate: at('2026-03-01T10:00:00Z') };
    const now = at('2026-03-01T10:05:30Z');

    it('ALL fires every missed date, oldest first, then waits for the next', () => {
      const result = evaluateSchedule(schedule('* * * * *', { recoverMissedSchedules: 'ALL' }), state, now);
      expect(iso(result.firings)).toEqual([
        '2026-03-01T10:00:00.000Z',
        '2026-03-01T10:01:00.000Z',
        '2026-03-01T10:02:00.000Z',
        '2026-03-01T10:03:00.000Z',
        '2026-03-01T10:04:00.000Z',
        '2026-03-01T10:05:00.000Z',
      ]);
      expect(result.nextDate).toEqual(at('2026-03-01T10:06:00Z'));
    });

    it('ALL catches a long downtime up over several evaluations, at most maxFirings each', () => {
      const trigger = schedule('* * * * *');
      const first = evaluateSchedule(trigger, state, now, { maxFirings: 4 });
      expect(iso(first.firings)).toHaveLength(4);
      expect(first.nextDate).toEqual(at('2026-03-01T10:04:00Z'));
      const second = evaluateSchedule(trigger, { nextDate: first.nextDate }, now, { maxFirings: 4 });
      expect(iso(second.firings)).toEqual(['2026-03-01T10:04:00.000Z', '2026-03-01T10:05:00.000Z']);
    });

    it('LAST fires only the latest missed date', () => {
      const result = evaluateSchedule(schedule('* * * * *', { recoverMissedSchedules: 'LAST' }), state, now);
      expect(iso(result.firings)).toEqual(['2026-03-01T10:05:00.000Z']);
      expect(result.nextDate).toEqual(at('2026-03-01T10:06:00Z'));
    });

    it('NONE fires nothing missed, yet fires a date that is only just due', () => {
      const trigger = schedule('* * * * *', { recoverMissedSchedules: 'NONE' });
      const result = evaluateSchedule(trigger, state, now);
      expect(result.firings).toEqual([]);
      expect(result.nextDate).toEqual(at('2026-03-01T10:06:00Z'));
      const onTime = evaluateSchedule(trigger, { nextDate: at('2026-03-01T10:06:00Z') }, at('2026-03-01T10:06:00.800Z'));
      expect(iso(onTime.firings)).toEqual(['2026-03-01T10:06:00.000Z']);
    });
  });

  it('stopAfter: the trigger stops once its last execution ended in a listed state', () => {
    const trigger = schedule('* * * * *', { stopAfter: ['FAILED'] });
    const state = { nextDate: at('2026-03-01T10:00:00Z') };
    const now = at('2026-03-01T10:00:01Z');
    expect(evaluateSchedule(trigger, { ...state, lastExecutionState: 'SUCCESS' }, now).stopped).toBe(false);
    const stopped = evaluateSchedule(trigger, { ...state, lastExecutionState: 'FAILED' }, now);
    expect(stopped).toEqual({ firings: [], nextDate: state.nextDate, stopped: true });
  });

  describe('conditions skip the dates they refuse', () => {
    const daily = (conditions: ScheduleCondition[], timezone = 'Etc/UTC'): string[] =>
      iso(
        scheduleDatesBetween(
          schedule('0 9 * * *', { conditions, timezone }),
          at('2026-03-01T00:00:00Z'),
          at('2026-04-01T00:00:00Z'),
          100,
        ),
      );

    it('DayWeek and Weekend', () => {
      expect(daily([{ kind: 'DayWeek', dayOfWeek: 'MONDAY' }])).toEqual([
        '2026-03-02T09:00:00.000Z',
        '2026-03-09T09:00:00.000Z',
        '2026-03-16T09:00:00.000Z',
        '2026-03-23T09:00:00.000Z',
        '2026-03-30T09:00:00.000Z',
      ]);
      expect(daily([{ kind: 'Weekend' }])).toHaveLength(9);
    });

    it('DayWeekInMonth: the first and the last Friday', () => {
      expect(daily([{ kind: 'DayWeekInMonth', dayOfWeek: 'FRIDAY', dayInMonth: 'FIRST' }])).toEqual(['2026-03-06T09:00:00.000Z']);
      expect(daily([{ kind: 'DayWeekInMonth', dayOfWeek: 'FRIDAY', dayInMonth: 'LAST' }])).toEqual(['2026-03-27T09:00:00.000Z']);
    });

    it('DateTimeBetween: after inclusive, before exclusive', () => {
      expect(daily([{ kind: 'DateTimeBetween', after: '2026-03-29T09:00:00Z', before: '2026-03-31T09:00:00+00:00' }])).toEqual([
        '2026-03-29T09:00:00.000Z',
        '2026-03-30T09:00:00.000Z',
      ]);
    });

    it('TimeBetween reads the time of day in the trigger time zone, and may span midnight', () => {
      const hourly = (condition: ScheduleCondition, timezone: string): string[] =>
        iso(
          scheduleDatesBetween(
            schedule('0 * * * *', { conditions: [condition], timezone }),
            at('2026-01-10T00:00:00Z'),
            at('2026-01-11T00:00:00Z'),
            100,
          ),
        );
      // 09:00-11:00 in Paris (UTC+1 in January) is 08:00-10:00Z.
      expect(hourly({ kind: 'TimeBetween', after: '09:00', before: '11:00' }, 'Europe/Paris')).toEqual([
        '2026-01-10T08:00:00.000Z',
        '2026-01-10T09:00:00.000Z',
      ]);
      expect(hourly({ kind: 'TimeBetween', after: '22:00', before: '02:00' }, 'Etc/UTC')).toEqual([
        '2026-01-10T00:00:00.000Z',
        '2026-01-10T01:00:00.000Z',
        '2026-01-10T22:00:00.000Z',
        '2026-01-10T23:00:00.000Z',
      ]);
    });

    it('a refused date is skipped by evaluateSchedule too, and the schedule moves on', () => {
      const trigger = schedule('0 9 * * *', { conditions: [{ kind: 'DayWeek', dayOfWeek: 'MONDAY' }] });
      const sunday = evaluateSchedule(trigger, { nextDate: at('2026-03-01T09:00:00Z') }, at('2026-03-01T09:00:00.5Z'));
      expect(sunday.firings).toEqual([]);
      expect(sunday.nextDate).toEqual(at('2026-03-02T09:00:00Z'));
    });
  });
});

describe('the PublicHoliday condition', () => {
  const holiday = (country: string, subDivision?: string): ScheduleCondition =>
    subDivision === undefined ? { kind: 'PublicHoliday', country } : { kind: 'PublicHoliday', country, subDivision };

  it("fires on the country's public holidays only, read as the trigger's time zone dates them", () => {
    const trigger = schedule('0 23 * * *', { timezone: 'Europe/Paris', conditions: [holiday('FR')] });
    // 23:00 in Paris: 21:00 or 22:00 UTC. 14 July and 15 August are public holidays in France, 1 November too.
    const dates = scheduleDatesBetween(trigger, at('2026-07-01T00:00:00Z'), at('2026-12-01T00:00:00Z'), 100);
    expect(iso(dates)).toEqual([
      '2026-07-14T21:00:00.000Z',
      '2026-08-15T21:00:00.000Z',
      '2026-11-01T22:00:00.000Z',
      '2026-11-11T22:00:00.000Z',
    ]);
  });

  it('reads the subdivision: Epiphany is a holiday in Bavaria, not in Berlin; DE-BY and BY name the same', () => {
    const epiphany = at('2026-01-06T09:00:00Z');
    const tz = { timezone: 'Europe/Berlin' };
    expect(meetsConditions({ ...tz, conditions: [holiday('DE', 'BY')] }, epiphany)).toBe(true);
    expect(meetsConditions({ ...tz, conditions: [holiday('DE', 'DE-BY')] }, epiphany)).toBe(true);
    expect(meetsConditions({ ...tz, conditions: [holiday('DE', 'BE')] }, epiphany)).toBe(false);
  });

  it('a date just after midnight local time belongs to the local day, not the UTC one', () => {
    // 2026-12-25 00:30 in Paris is still 24 December in UTC.
    const christmas = at('2026-12-24T23:30:00Z');
    expect(meetsConditions({ timezone: 'Europe/Paris', conditions: [holiday('FR')] }, christmas)).toBe(true);
    expect(meetsConditions({ timezone: 'Etc/UTC', conditions: [holiday('FR')] }, christmas)).toBe(false);
  });
});
