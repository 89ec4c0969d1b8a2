import fc from 'fast-check';
import { JobResult, jobMessageId, type JobRef } from '@lanner/frames';
import {
  LOST_BY_HEARTBEATS_REASON,
  MISSED_HEARTBEATS_BEFORE_LOST,
  SILENT_INTERVALS_BEFORE_END,
  nextSession,
  openSession,
  type HeldJobs,
  type Session,
  type SessionEffect,
} from './index';
import { keyOf, refOf, TIMINGS as timings, workerIdentity } from './test-support/session-fixtures';

// The lost-job rules on a virtual clock: generated runs of heartbeats, results
// and silences against a model of what the worker holds.

const identity = workerIdentity('token-1');
const JOBS = 4;

/** The worker's jobs as the controller's session would hold them. */
class Held implements HeldJobs {
  readonly jobs = new Map<string, { started: boolean }>();
  readonly finished = new Set<string>();
  get size() {
    return this.jobs.size;
  }
  held(ref: JobRef) {
    return this.jobs.get(jobMessageId(ref.taskRunId, ref.attempt));
  }
  known(ref: JobRef) {
    const key = jobMessageId(ref.taskRunId, ref.attempt);
    if (this.jobs.has(key)) return { finished: false };
    return this.finished.has(key) ? { finished: true } : undefined;
  }
  entries() {
    return this.jobs.entries();
  }
  finish(key: string) {
    this.jobs.delete(key);
    this.finished.add(key);
  }
}

type Event =
  | { kind: 'heartbeat'; listing: boolean[]; gapMs: number }
  | { kind: 'started'; job: number }
  | { kind: 'result'; job: number }
  | { kind: 'tick'; gapMs: number };

const events = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('heartbeat' as const),
      listing: fc.array(fc.boolean(), { minLength: JOBS, maxLength: JOBS }),
      gapMs: fc.integer({ min: 0, max: 20_000 }),
    }),
    fc.record({ kind: fc.constant('started' as const), job: fc.integer({ min: 0, max: JOBS - 1 }) }),
    fc.record({ kind: fc.constant('result' as const), job: fc.integer({ min: 0, max: JOBS - 1 }) }),
    fc.record({ kind: fc.constant('tick' as const), gapMs: fc.integer({ min: 0, max: 20_000 }) }),
  ),
  { maxLength: 60 },
);

/** Runs the events, carrying out the effects on the model as the controller would. */
function run(all: Event[]) {
  let now = 1_000_000;
  let session: Session = openSession(identity, timings, now);
  const held = new Held();
  for (let job = 0; job < JOBS; job += 1) held.jobs.set(keyOf(job), { started: false });
  /** Per job: heartbeats in a row that omitted it while it was started and held. */
  const missedInARow = new Map<string, number>();
  const lost: string[] = [];
  const lostTooEarly: string[] = [];
  const closes: { at: number; silentFor: number }[] = [];
  let lastHeard = now;
  const apply = (effects: readonly SessionEffect[]) => {
    for (const effect of effects) {
      if (effect.kind === 'lost') {
        lost.push(effect.key);
        if ((missedInARow.get(effect.key) ?? 0) < MISSED_HEARTBEATS_BEFORE_LOST) lostTooEarly.push(effect.key);
        held.finish(effect.key);
      } else if (effect.kind === 'publish-started') {
        const job = held.jobs.get(jobMessageId(effect.frame.taskRunId, effect.frame.attempt));
        if (job) job.started = true;
      } else if (effect.kind === 'publish-result') {
        held.finish(jobMessageId(effect.frame.taskRunId, effect.frame.attempt));
      } else if (effect.kind === 'close') {
        closes.push({ at: now, silentFor: now - lastHeard });
      }
    }
  };
  const frame = (value: Parameters<typeof nextSession>[1]) => {
    if (session.phase !== 'open') return;
    lastHeard = now;
    let step = nextSession(session, { kind: 'heard' }, now);
    step = nextSession(step.session, value, now);
    session = step.session;
    apply(step.effects);
  };
  for (const event of all) {
    switch (event.kind) {
      case 'tick': {
        now += event.gapMs;
        const step = nextSession(session, { kind: 'tick' }, now);
        session = step.session;
        apply(step.effects);
        break;
      }
      case 'heartbeat': {
        now += event.gapMs;
        // The model counts first, then the rules decide (they see the same heartbeat).
        const runningJobs = event.listing.flatMap((listed, job) => (listed ? [refOf(job)] : []));
        if (session.phase === 'open') {
          for (const [key, job] of held.jobs) {
            const listed = runningJobs.some((ref) => jobMessageId(ref.taskRunId, ref.attempt) === key);
            missedInARow.set(key, job.started && !listed ? (missedInARow.get(key) ?? 0) + 1 : 0);
          }
        }
        frame({ kind: 'frame', frame: { $case: 'heartbeat', value: { runningJobs, sentAt: undefined } }, jobs: held });
        break;
      }
      case 'started':
        frame({
          kind: 'frame',
          frame: { $case: 'jobStarted', value: { ...refOf(event.job), startedAt: new Date(0) } },
          jobs: held,
        });
        break;
      case 'result':
        missedInARow.delete(keyOf(event.job));
        frame({
          kind: 'frame',
          frame: { $case: 'jobResult', value: JobResult.fromPartial({ ...refOf(event.job), credit: 0 }) },
          jobs: held,
        });
        break;
    }
  }
  return { lost, lostTooEarly, closes, held, missedInARow, session };
}

describe('the lost-job rules of a worker stream, on a virtual clock', () => {
  it('report a job lost only once it was started and missing from 2 heartbeats in a row, never twice, never after its result', () => {
    fc.assert(
      fc.property(events, (all) => {
        const { lost, lostTooEarly, held } = run(all);
        expect(lostTooEarly).toEqual([]);
        expect(new Set(lost).size).toBe(lost.length);
        // A lost job is no longer held; the rules report nothing the worker does not hold.
        for (const key of lost) expect(held.jobs.has(key)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('report every started job that 2 heartbeats in a row left out while the stream was open', () => {
    fc.assert(
      fc.property(events, (all) => {
        const { lost, missedInARow } = run(all);
        for (const [key, missed] of missedInARow) {
          if (missed >= MISSED_HEARTBEATS_BEFORE_LOST) expect(lost).toContain(key);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never report a job the worker lists in every heartbeat, nor one it never started', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 30 }),
        fc.array(fc.boolean(), { minLength: JOBS, maxLength: JOBS }),
        (gaps, started) => {
          const all: Event[] = [
            ...started.flatMap((isStarted, job) => (isStarted ? [{ kind: 'started' as const, job }] : [])),
            ...gaps.map((gapMs) => ({ kind: 'heartbeat' as const, listing: started, gapMs })),
          ];
          expect(run(all).lost).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('end a stream at a tick only after 5 heartbeat intervals of silence, and only once', () => {
    fc.assert(
      fc.property(events, (all) => {
        const { closes } = run(all);
        expect(closes.length).toBeLessThanOrEqual(1);
        for (const close of closes) {
          expect(close.silentFor).toBeGreaterThan(SILENT_INTERVALS_BEFORE_END * timings.heartbeatIntervalMs);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('name the heartbeats in the reason of a lost job', () => {
    expect(LOST_BY_HEARTBEATS_REASON).toBe('the worker stopped reporting it as running for 2 heartbeats and sent no result');
  });
});

describe('the adoption grace of an ended stream', () => {
  const restartStrategies = fc.constantFrom('IMMEDIATELY', 'AFTER_TERMINATION_GRACE_PERIOD', 'NEVER');

  it('waits the grace unless the group restarts at once, and nothing when no job was held', () => {
    fc.assert(
      fc.property(fc.nat(20), restartStrategies, fc.integer({ min: 100, max: 3_600_000 }), (count, strategy, graceMs) => {
        const session = openSession(identity, { ...timings, adoptionGraceMs: graceMs }, 0);
        const heldJobs = Array.from({ length: count }, (_, job) => keyOf(job));
        const { effects, session: after } = nextSession(
          session,
          { kind: 'left-holding', heldJobs, restartStrategy: strategy },
          5,
        );
        expect(after.phase).toBe('ended');
        if (count === 0) expect(effects).toEqual([]);
        else expect(effects).toEqual([{ kind: 'wait-grace', ms: strategy === 'IMMEDIATELY' ? 0 : graceMs }]);
      }),
    );
  });

  it('then reports a job lost only when no other stream here holds it and the controller is not stopping', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), (heldByAnotherStream, controllerClosing) => {
        const left = nextSession(
          openSession(identity, timings, 0),
          { kind: 'left-holding', heldJobs: ['run-1:1'], restartStrategy: 'AFTER_TERMINATION_GRACE_PERIOD' },
          5,
        ).session;
        const { effects } = nextSession(
          left,
          { kind: 'grace-over', key: 'run-1:1', heldByAnotherStream, controllerClosing },
          timings.adoptionGraceMs,
        );
        expect(effects).toEqual(heldByAnotherStream || controllerClosing ? [] : [{ kind: 'report-lost', key: 'run-1:1' }]);
      }),
    );
  });
});
