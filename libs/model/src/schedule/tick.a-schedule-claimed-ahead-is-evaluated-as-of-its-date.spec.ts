import { scheduleEvaluationDate } from './tick';

describe('a claimed schedule is evaluated as of its next date when that is still ahead', () => {
  const now = new Date('2026-12-03T12:00:55.002Z');
  const ahead = new Date('2026-12-03T12:01:00.000Z');

  it('is evaluated as of its next date, a date ahead of the clock', () => {
    expect(scheduleEvaluationDate({ pending: false, nextDate: ahead, backfillRunning: false }, now)).toEqual(ahead);
  });

  it('is evaluated now when due or overdue, so a missed date is caught up at once', () => {
    const due = new Date('2026-12-03T12:00:55.000Z');
    expect(scheduleEvaluationDate({ pending: false, nextDate: due, backfillRunning: false }, now)).toEqual(now);
    expect(
      scheduleEvaluationDate({ pending: false, nextDate: new Date('2026-12-03T11:00:00Z'), backfillRunning: false }, now),
    ).toEqual(now);
  });

  it('is evaluated now when never evaluated, or without a next date', () => {
    expect(scheduleEvaluationDate({ pending: true, nextDate: ahead, backfillRunning: false }, now)).toEqual(now);
    expect(scheduleEvaluationDate({ pending: false, nextDate: null, backfillRunning: false }, now)).toEqual(now);
  });

  it('is evaluated now while a backfill runs: its steps are paced by the clock, never taken ahead', () => {
    expect(scheduleEvaluationDate({ pending: false, nextDate: ahead, backfillRunning: true }, now)).toEqual(now);
  });
});
