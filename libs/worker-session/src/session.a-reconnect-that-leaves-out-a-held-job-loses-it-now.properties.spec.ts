import fc from 'fast-check';
import { jobMessageId, type JobRef } from '@lanner/frames';
import { NOT_LISTED_ON_RECONNECT_REASON, nextSession, openSession, type Session, type SessionEffect } from './index';
import { keyOf, refOf, TIMINGS as timings, workerIdentity } from './test-support/session-fixtures';

// A worker killed -9 comes back in a few seconds under the same worker id, running
// nothing: the Hello of its new stream is the list of what its process runs. A job its
// ended stream held that the list leaves out is lost at that Hello; only the jobs it
// lists wait out the adoption grace (they are being adopted).

const identity = workerIdentity(null);
const JOBS = 5;
const GRACE = 'AFTER_TERMINATION_GRACE_PERIOD';

/** One reconnect's Hello: which of the jobs it lists, and jobs the stream never held. */
const listing = fc.record({
  lists: fc.array(fc.boolean(), { minLength: JOBS, maxLength: JOBS }),
  others: fc.array(fc.integer({ min: JOBS, max: JOBS + 3 }), { maxLength: 3 }),
});
type Listing = { lists: boolean[]; others: number[] };
const runningJobsOf = (one: Listing): JobRef[] => [
  ...one.lists.flatMap((listed, job) => (listed ? [refOf(job)] : [])),
  ...one.others.map(refOf),
];

const lostKeys = (effects: readonly SessionEffect[]) =>
  effects.flatMap((effect) => (effect.kind === 'report-lost' ? [effect] : []));

/**
 * The stream ends holding `held`; reconnects come, some while it is still open here
 * (`before`: how many), the rest after its end; then the grace is over for every held job.
 */
function run(held: boolean[], reconnects: Listing[], before: number) {
  const heldJobs = held.flatMap((holds, job) => (holds ? [keyOf(job)] : []));
  let now = 1_000;
  let session: Session = openSession(identity, timings, now);
  const atReconnect: { key: string; reason?: string; at: number }[] = [];
  const atGraceOver: string[] = [];
  const waits: number[] = [];
  const step = (input: Parameters<typeof nextSession>[1]) => {
    const next = nextSession(session, input, now);
    session = next.session;
    return next.effects;
  };
  const reconnect = (one: Listing) => {
    now += 500;
    for (const effect of lostKeys(step({ kind: 'worker-reconnected', runningJobs: runningJobsOf(one) })))
      atReconnect.push({ ...effect, at: now });
  };
  // Some reconnects are heard while this stream still looks open here, or before its end is handled.
  reconnects.slice(0, before).forEach(reconnect);
  step({ kind: 'closed' });
  now += 100;
  for (const effect of step({ kind: 'left-holding', heldJobs, restartStrategy: GRACE })) {
    if (effect.kind === 'wait-grace') waits.push(effect.ms);
    if (effect.kind === 'report-lost') atReconnect.push({ ...effect, at: now });
  }
  reconnects.slice(before).forEach(reconnect);
  now += timings.adoptionGraceMs;
  for (const key of heldJobs) {
    for (const effect of lostKeys(step({ kind: 'grace-over', key, heldByAnotherStream: false, controllerClosing: false })))
      atGraceOver.push(effect.key);
  }
  return { heldJobs, atReconnect, atGraceOver, waits };
}

describe('a job of an ended stream that its worker leaves out of the Hello of a newer stream', () => {
  const held = fc.array(fc.boolean(), { minLength: JOBS, maxLength: JOBS });
  const reconnects = fc.array(listing, { minLength: 1, maxLength: 3 });

  it('is reported lost at that Hello, once, naming the reconnect; a job every Hello listed waits the grace', () => {
    fc.assert(
      fc.property(held, reconnects, fc.nat(3), (holds, all, before) => {
        const { heldJobs, atReconnect, atGraceOver } = run(holds, all, Math.min(before, all.length));
        const listedByAll = heldJobs.filter((key) =>
          all.every((one) => runningJobsOf(one).some((ref) => jobMessageId(ref.taskRunId, ref.attempt) === key)),
        );
        const leftOut = heldJobs.filter((key) => !listedByAll.includes(key));
        expect(atReconnect.map((one) => one.key).sort()).toEqual([...leftOut].sort());
        for (const one of atReconnect) expect(one.reason).toBe(NOT_LISTED_ON_RECONNECT_REASON);
        // Never before the grace for a job still listed, and never twice.
        expect(atGraceOver.sort()).toEqual([...listedByAll].sort());
        const everyReport = [...atReconnect.map((one) => one.key), ...atGraceOver];
        expect(new Set(everyReport).size).toBe(everyReport.length);
      }),
      { numRuns: 400 },
    );
  });

  it('makes the stream wait the grace only for the jobs still listed', () => {
    fc.assert(
      fc.property(held, listing, (holds, one) => {
        const { heldJobs, waits } = run(holds, [one], 1);
        const listed = heldJobs.filter((key) =>
          runningJobsOf(one).some((ref) => jobMessageId(ref.taskRunId, ref.attempt) === key),
        );
        expect(waits).toEqual(listed.length > 0 ? [timings.adoptionGraceMs] : []);
      }),
      { numRuns: 200 },
    );
  });

  it('is, after a kill -9 and a restart that runs nothing, reported lost at the Hello, not after the grace', () => {
    const { atReconnect, atGraceOver } = run(
      [true, true, false, false, false],
      [{ lists: [false, false, false, false, false], others: [] }],
      0,
    );
    expect(atReconnect.map((one) => one.key)).toEqual([keyOf(0), keyOf(1)]);
    expect(Math.max(...atReconnect.map((one) => one.at))).toBeLessThan(1_000 + timings.adoptionGraceMs);
    expect(atGraceOver).toEqual([]);
  });

  it('changes nothing while the stream is open (its jobs are judged when it ends), nor without a reconnect', () => {
    fc.assert(
      fc.property(held, listing, (holds, one) => {
        const open = openSession(identity, timings, 0);
        expect(nextSession(open, { kind: 'worker-reconnected', runningJobs: runningJobsOf(one) }, 1).effects).toEqual([]);
        const { atReconnect, atGraceOver, heldJobs } = run(holds, [], 0);
        expect(atReconnect).toEqual([]);
        expect(atGraceOver.sort()).toEqual([...heldJobs].sort());
      }),
      { numRuns: 100 },
    );
  });
});
