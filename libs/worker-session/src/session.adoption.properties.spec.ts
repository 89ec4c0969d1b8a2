import fc from 'fast-check';
import type { JobRef } from '@lanner/frames';
import { nextSession, openSession, type AdoptionRow, type Session, type SessionIdentity, type SessionTimings } from './index';

// The adoption rules of Hello.running_jobs on a virtual clock: the store's
// answers and the old stream's end are generated, the controller's loop of
// carrying out effects and answering them is played here.

const ref: JobRef = { taskRunId: 'run-1', attempt: 1 };
const SERVED = new Set(['q-served']);

interface World {
  readonly anonymous: boolean;
  /** The row's worker id: this worker's own, another's, or no row at all. */
  readonly rowOwner: 'self' | 'other' | 'none';
  readonly rowQueue: 'q-served' | 'q-other';
  /** When the stream the row names ends, from the Hello (ms); null: it stays connected. */
  readonly holderEndsAfterMs: number | null;
  /** How long each store or fleet answer takes (ms). */
  readonly answerMs: number;
  /** Whether the conditional UPDATE finds the row as read. */
  readonly reassignSucceeds: boolean;
  /** The stream ends this long after the Hello (ms); null: it stays. */
  readonly streamEndsAfterMs: number | null;
  readonly waitMs: number;
  readonly recheckMs: number;
}

const worlds: fc.Arbitrary<World> = fc.record({
  anonymous: fc.boolean(),
  rowOwner: fc.constantFrom('self' as const, 'other' as const, 'none' as const),
  rowQueue: fc.constantFrom('q-served' as const, 'q-other' as const),
  holderEndsAfterMs: fc.option(fc.integer({ min: 0, max: 8_000 })),
  answerMs: fc.integer({ min: 0, max: 400 }),
  reassignSucceeds: fc.boolean(),
  streamEndsAfterMs: fc.option(fc.integer({ min: 0, max: 8_000 })),
  waitMs: fc.integer({ min: 0, max: 5_000 }),
  recheckMs: fc.integer({ min: 10, max: 1_000 }),
});

/** An anonymous worker listing a job another worker's stream holds, of a queue its group serves. */
const anonymousTakeovers = worlds.map((world): World => ({ ...world, anonymous: true, rowOwner: 'other', rowQueue: 'q-served' }));

interface Outcome {
  readonly adopted: boolean;
  readonly why?: string;
  readonly reassigned: boolean;
  readonly checks: { at: number; connected: boolean }[];
  readonly elapsedMs: number;
}

function play(world: World): Outcome {
  const start = 50_000;
  let now = start;
  const timings: SessionTimings = {
    heartbeatIntervalMs: 3_000,
    anonymousAdoptionWaitMs: world.waitMs,
    anonymousAdoptionRecheckMs: world.recheckMs,
    adoptionGraceMs: 10_000,
  };
  const identity: SessionIdentity = {
    workerId: world.anonymous ? 'anonymous-me' : 'token-worker',
    workerGroupId: 'default',
    registrationTokenId: world.anonymous ? null : 'token-1',
  };
  let session: Session = openSession(identity, timings, now);
  const row: AdoptionRow | null =
    world.rowOwner === 'none'
      ? null
      : { workerId: world.rowOwner === 'self' ? identity.workerId : 'someone-else', workerQueueId: world.rowQueue };
  const checks: { at: number; connected: boolean }[] = [];
  let reassigned = false;
  const step = (input: Parameters<typeof nextSession>[1]) => {
    if (world.streamEndsAfterMs !== null && now - start >= world.streamEndsAfterMs && session.phase === 'open') {
      session = nextSession(session, { kind: 'closed' }, now).session;
    }
    const next = nextSession(session, input, now);
    session = next.session;
    return next.effects;
  };
  let effects = step({ kind: 'adoption-row', ref, row, servedQueues: SERVED });
  for (let guard = 0; guard < 10_000; guard += 1) {
    const [effect] = effects;
    expect(effects).toHaveLength(1);
    switch (effect.kind) {
      case 'not-adopted':
        return { adopted: false, why: effect.why, reassigned, checks, elapsedMs: now - start };
      case 'adopt':
        return { adopted: true, reassigned, checks, elapsedMs: now - start };
      case 'check-holder': {
        now += effect.afterMs + world.answerMs;
        const connected = world.holderEndsAfterMs === null || now - start < world.holderEndsAfterMs;
        checks.push({ at: now - start, connected });
        effects = step({ kind: 'holder-connected', ref, connected });
        break;
      }
      case 'reassign':
        now += world.answerMs;
        reassigned = true;
        effects = step({ kind: 'reassigned', ref, ok: world.reassignSucceeds });
        break;
      default:
        throw new Error(`unexpected effect ${effect.kind}`);
    }
  }
  throw new Error('the adoption never decided');
}

describe('the adoption rules of a reconnecting worker, on a virtual clock', () => {
  it('never adopt a job whose row is gone, of a queue the group does not serve, or of another worker for a token worker', () => {
    fc.assert(
      fc.property(worlds, (world) => {
        const outcome = play(world);
        if (world.rowOwner === 'none' || world.rowQueue !== 'q-served') expect(outcome.reassigned).toBe(false);
        if (!world.anonymous && world.rowOwner === 'other') expect(outcome.reassigned).toBe(false);
        if (outcome.adopted) expect(outcome.reassigned).toBe(true);
        if (outcome.reassigned) expect(outcome.adopted).toBe(world.reassignSucceeds);
      }),
      { numRuns: 500 },
    );
  });

  it("adopt a worker's own row at once, without waiting on any other stream", () => {
    fc.assert(
      fc.property(worlds, (world) => {
        fc.pre(world.rowOwner === 'self' && world.rowQueue === 'q-served');
        const outcome = play(world);
        expect(outcome.checks).toEqual([]);
        expect(outcome.adopted).toBe(world.reassignSucceeds);
      }),
      { numRuns: 300 },
    );
  });

  it("take another worker's row for an anonymous worker only once its stream was seen disconnected", () => {
    fc.assert(
      fc.property(anonymousTakeovers, (world) => {
        const outcome = play(world);
        expect(outcome.checks.length).toBeGreaterThan(0);
        const last = outcome.checks[outcome.checks.length - 1];
        // Every check but the last found the old stream connected.
        expect(outcome.checks.slice(0, -1).every((check) => check.connected)).toBe(true);
        expect(outcome.reassigned).toBe(!last.connected);
      }),
      { numRuns: 500 },
    );
  });

  it('wait for the old stream at most the adoption wait (plus one answer), checking it every recheck interval', () => {
    fc.assert(
      fc.property(anonymousTakeovers, (world) => {
        const outcome = play(world);
        // Only a check answered before the wait ran out leads to another one.
        for (const check of outcome.checks.slice(0, -1)) expect(check.at).toBeLessThan(world.waitMs);
        // The last check starts by the end of the wait; the conditional UPDATE takes one more answer.
        expect(outcome.elapsedMs).toBeLessThanOrEqual(world.waitMs + 2 * world.answerMs);
        // No faster than the recheck interval: a connected holder is not polled in a busy loop.
        expect(outcome.checks.length).toBeLessThanOrEqual(Math.ceil(world.waitMs / world.recheckMs) + 2);
        // A holder still connected when the wait is over (and the stream still open) keeps the job.
        if (outcome.why === 'the worker stream it is recorded for is still connected') {
          const last = outcome.checks[outcome.checks.length - 1];
          const streamEnded = world.streamEndsAfterMs !== null && last.at >= world.streamEndsAfterMs;
          expect(last.connected).toBe(true);
          expect(streamEnded || last.at >= world.waitMs).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a holder that ends before the wait is over lets the job be adopted', () => {
    fc.assert(
      fc.property(
        anonymousTakeovers.chain((world) =>
          fc.integer({ min: 0, max: Math.max(0, world.waitMs - world.answerMs - 1) }).map((endsAfter) => ({
            ...world,
            holderEndsAfterMs: endsAfter,
            streamEndsAfterMs: null,
            reassignSucceeds: true,
          })),
        ),
        (world) => {
          fc.pre(world.holderEndsAfterMs + world.answerMs < world.waitMs);
          expect(play(world).adopted).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
