import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CapacitySubscription, reservedSlots } from './capacity-config';
import { QueueNotSubscribed } from './capacity-errors';
import { CapacityLedger, CapacitySnapshot, SlotLease } from './capacity-ledger';
import { DispatchPolicy } from './dispatch-policy';
import { drain } from './capacity.spec-support';

const QUEUES = ['q0', 'q1', 'q2', 'q3', 'q4'] as const;

/** Random subscription lists, scaled so the percentages never sum above 100. */
const subscriptionsArb: fc.Arbitrary<CapacitySubscription[]> = fc
  .shuffledSubarray([...QUEUES], { minLength: 0, maxLength: QUEUES.length })
  .chain((queueIds) =>
    fc.tuple(
      fc.constant(queueIds),
      fc.array(
        fc.record({
          reservedPercent: fc.oneof(fc.constant(undefined), fc.constant(0), fc.integer({ min: 1, max: 100 })),
          // ELASTIC more often, so lending between several subscriptions is common.
          mode: fc.oneof(
            { weight: 1, arbitrary: fc.constant('STRICT' as const) },
            { weight: 2, arbitrary: fc.constant('ELASTIC' as const) },
          ),
        }),
        { minLength: queueIds.length, maxLength: queueIds.length },
      ),
    ),
  )
  .map(([queueIds, settings]) => {
    const sum = settings.reduce((total, setting) => total + (setting.reservedPercent ?? 0), 0);
    return queueIds.map((workerQueueId, index) => {
      const { reservedPercent, mode } = settings[index];
      const scaled = reservedPercent === undefined || sum <= 100 ? reservedPercent : Math.floor((reservedPercent * 100) / sum);
      return { workerQueueId, reservedPercent: scaled, mode };
    });
  });

type Step =
  | { kind: 'acquire'; queue: number }
  | { kind: 'arrive'; queue: number; jobs: number }
  | { kind: 'release'; pick: number; twice: boolean }
  | { kind: 'releaseThenDispatch'; pick: number }
  | { kind: 'reconfigure'; subscriptions: CapacitySubscription[] };

const queueIndexArb = fc.integer({ min: 0, max: QUEUES.length - 1 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('acquire' as const), queue: queueIndexArb }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('arrive' as const), queue: queueIndexArb, jobs: fc.integer({ min: 1, max: 10 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat(), twice: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('releaseThenDispatch' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reconfigure' as const), subscriptions: subscriptionsArb }) },
);

const scenarioArb = fc.record({
  // Mostly small workers, where pools fill up and overlap quickly.
  slots: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 8 }) },
    { weight: 1, arbitrary: fc.integer({ min: 9, max: 32 }) },
  ),
  subscriptions: subscriptionsArb,
  steps: fc.array(stepArb, { minLength: 1, maxLength: 60 }),
});

function entry(snapshot: CapacitySnapshot, workerQueueId: string) {
  return snapshot.subscriptions.find((candidate) => candidate.workerQueueId === workerQueueId);
}

/** Every figure of the snapshot adds up, and matches the leases the test still holds. */
function expectSnapshotAddsUp(
  snapshot: CapacitySnapshot,
  slots: number,
  subscriptions: readonly CapacitySubscription[],
  held: readonly SlotLease[],
) {
  assert.equal(snapshot.slots, slots);
  assert.equal(snapshot.reserved + snapshot.shared, slots);
  assert.equal(
    snapshot.reserved,
    subscriptions.reduce((total, subscription) => total + reservedSlots(slots, subscription.reservedPercent ?? 0), 0),
  );
  assert.ok(snapshot.used <= slots);
  assert.equal(snapshot.used + snapshot.free, slots);
  assert.equal(snapshot.used, held.length);
  const heldPerQueue = new Map<string, number>();
  for (const lease of held) heldPerQueue.set(lease.workerQueueId, (heldPerQueue.get(lease.workerQueueId) ?? 0) + 1);
  let used = 0;
  let sharedUsed = 0;
  let borrowed = 0;
  let lent = 0;
  for (const subscription of snapshot.subscriptions) {
    assert.equal(subscription.used, subscription.reservedUsed + subscription.sharedUsed + subscription.borrowed);
    assert.equal(subscription.used, heldPerQueue.get(subscription.workerQueueId) ?? 0);
    assert.equal(subscription.idleReserved, Math.max(0, subscription.reserved - subscription.reservedUsed - subscription.lent));
    if (!subscription.subscribed) assert.ok(subscription.used + subscription.lent > 0);
    used += subscription.used;
    sharedUsed += subscription.sharedUsed;
    borrowed += subscription.borrowed;
    lent += subscription.lent;
  }
  assert.equal(used, snapshot.used);
  assert.equal(sharedUsed, snapshot.sharedUsed);
  assert.equal(borrowed, snapshot.borrowed);
  assert.equal(lent, snapshot.lent);
  assert.equal(borrowed, lent);
}

/** A borrowed lease only ever joins two ELASTIC subscriptions, judged by their modes when it was granted. */
function expectLendingRules(before: CapacitySnapshot, lease: SlotLease | undefined) {
  if (lease?.occupies !== 'BORROWED') return;
  assert.equal(entry(before, lease.workerQueueId)?.mode, 'ELASTIC');
  assert.equal(entry(before, lease.lenderQueueId as string)?.mode, 'ELASTIC');
}

/** Reserved slots of a STRICT subscription are never newly lent. */
function expectStrictSlotsNotLentFurther(before: CapacitySnapshot, after: CapacitySnapshot) {
  for (const subscription of after.subscriptions) {
    if (subscription.mode !== 'STRICT') continue;
    assert.ok(subscription.lent <= (entry(before, subscription.workerQueueId)?.lent ?? 0));
  }
}

/** No pool holds more than its size: true except for a while after a reconfiguration shrank one. */
function hasNoOverflow(snapshot: CapacitySnapshot): boolean {
  return (
    snapshot.sharedUsed <= snapshot.shared &&
    snapshot.subscriptions.every((subscription) => subscription.reservedUsed + subscription.lent <= subscription.reserved)
  );
}

/**
 * A controller's view of one worker: the ledger, the policy, the waiting work
 * and the leases currently running. Every step is checked against the rules.
 */
class ControllerModel {
  readonly policy = new DispatchPolicy();
  readonly waiting = new Map<string, number>();
  readonly held: SlotLease[] = [];
  readonly released: SlotLease[] = [];

  constructor(readonly ledger: CapacityLedger) {}

  arrive(workerQueueId: string, jobs: number): void {
    this.waiting.set(workerQueueId, (this.waiting.get(workerQueueId) ?? 0) + jobs);
  }

  dispatchAll(): void {
    const before = this.ledger.snapshot();
    const dispatches = drain(this.policy, [this.ledger], this.waiting);
    dispatches.forEach((dispatch) => expectLendingRules(before, dispatch.lease));
    this.held.push(...dispatches.map((dispatch) => dispatch.lease));
    // Work-conserving: once the policy stops, no waiting queue could take a slot.
    for (const [workerQueueId, jobs] of this.waiting) {
      if (jobs > 0) assert.equal(this.ledger.peek(workerQueueId), undefined);
    }
  }

  takeHeld(pick: number): SlotLease | undefined {
    if (this.held.length === 0) return undefined;
    const [lease] = this.held.splice(pick % this.held.length, 1);
    this.released.push(lease);
    return lease;
  }

  /** From a quiescent worker, one job finishes; checks who gets the freed slot. */
  releaseThenDispatch(pick: number): void {
    const { ledger, waiting } = this;
    this.dispatchAll();
    const quiescent = ledger.snapshot();
    const lease = this.takeHeld(pick);
    if (lease === undefined) return;
    assert.equal(ledger.release(lease), true);
    const belowFloor = ledger
      .snapshot()
      .subscriptions.filter(
        (subscription) =>
          subscription.subscribed &&
          (waiting.get(subscription.workerQueueId) ?? 0) > 0 &&
          subscription.used < subscription.reserved,
      )
      .map((subscription) => subscription.workerQueueId);
    const servableBelowFloor = belowFloor.filter((workerQueueId) => ledger.peek(workerQueueId) !== undefined);
    const dispatch = this.policy.next([ledger], waiting);
    // Floors first: if a subscription below its floor can take a slot, one of them gets it.
    if (servableBelowFloor.length > 0) {
      assert.equal(dispatch?.reason, 'FLOOR');
      assert.ok(servableBelowFloor.includes(dispatch?.workerQueueId as string));
    }
    if (dispatch?.reason === 'FLOOR') assert.ok(belowFloor.includes(dispatch.workerQueueId));
    // The slot returns to the subscription whose reserved slot it was (its own, or lent out):
    // with waiting work below its floor, that subscription gets it. Only when no pool
    // overflows, i.e. not while a reconfiguration's leftovers still sit on other slots.
    const owner = lease.occupies === 'RESERVED' ? lease.workerQueueId : lease.lenderQueueId;
    if (owner !== undefined && hasNoOverflow(quiescent) && belowFloor.includes(owner)) {
      assert.equal(dispatch?.workerQueueId, owner);
    }
    if (dispatch !== undefined) {
      waiting.set(dispatch.workerQueueId, (waiting.get(dispatch.workerQueueId) ?? 0) - 1);
      this.held.push(dispatch.lease);
    }
    this.dispatchAll();
  }

  /** Every lease still running can be released exactly once, and then the worker is empty. */
  releaseEverything(slots: number): void {
    for (const lease of this.held) assert.equal(this.ledger.release(lease), true);
    for (const lease of this.released) assert.equal(this.ledger.release(lease), false);
    const snapshot = this.ledger.snapshot();
    assert.deepEqual([snapshot.used, snapshot.free, snapshot.borrowed, snapshot.lent], [0, slots, 0, 0]);
  }
}

/** Workers saturated by one early queue before the others' work arrives, so reserved slots are out on loan. */
const lentOutScenarioArb = fc.record({
  slots: fc.integer({ min: 2, max: 16 }),
  subscriptions: subscriptionsArb.filter((subscriptions) => subscriptions.length >= 2),
  early: queueIndexArb,
  arrivals: fc.array(fc.record({ queue: queueIndexArb, jobs: fc.integer({ min: 1, max: 10 }) }), { maxLength: 6 }),
  releases: fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
});

describe('capacity ledger and dispatch policy invariants (property-based)', () => {
  it('hold over random slot counts, subscriptions, modes and acquire/release/reconfigure sequences', () => {
    fc.assert(
      fc.property(scenarioArb, ({ slots, subscriptions: initial, steps }) => {
        const ledger = new CapacityLedger(slots, initial);
        const controller = new ControllerModel(ledger);
        let subscriptions = initial;
        for (const step of steps) {
          const before = ledger.snapshot();
          switch (step.kind) {
            case 'acquire': {
              const workerQueueId = QUEUES[step.queue];
              if (!ledger.isSubscribed(workerQueueId)) {
                assert.throws(() => ledger.acquire(workerQueueId), QueueNotSubscribed);
                break;
              }
              const lease = ledger.acquire(workerQueueId);
              expectLendingRules(before, lease);
              if (lease !== undefined) controller.held.push(lease);
              break;
            }
            case 'arrive':
              controller.arrive(QUEUES[step.queue], step.jobs);
              controller.dispatchAll();
              break;
            case 'release': {
              const lease = controller.takeHeld(step.pick);
              if (lease === undefined) break;
              assert.equal(ledger.release(lease), true);
              if (step.twice) {
                const afterFirst = ledger.snapshot();
                assert.equal(ledger.release(lease), false);
                assert.deepEqual(ledger.snapshot(), afterFirst);
              }
              break;
            }
            case 'releaseThenDispatch':
              controller.releaseThenDispatch(step.pick);
              break;
            case 'reconfigure': {
              ledger.reconfigure(step.subscriptions);
              subscriptions = step.subscriptions;
              break;
            }
          }
          // Includes: nothing running is revoked by a reconfiguration, every held lease still counts.
          const after = ledger.snapshot();
          expectSnapshotAddsUp(after, slots, subscriptions, controller.held);
          expectStrictSlotsNotLentFurther(before, after);
        }
        controller.releaseEverything(slots);
      }),
      { numRuns: 300 },
    );
  });

  it('a subscription below its floor gets the next freed slot unless its own slots are on loan', () => {
    fc.assert(
      fc.property(lentOutScenarioArb, ({ slots, subscriptions, early, arrivals, releases }) => {
        const ledger = new CapacityLedger(slots, subscriptions);
        const controller = new ControllerModel(ledger);
        // One queue saturates the idle worker first: it fills the shared pool and borrows what it may.
        const earlyQueue = subscriptions[early % subscriptions.length].workerQueueId;
        controller.arrive(earlyQueue, slots * 2);
        controller.dispatchAll();
        for (const { queue, jobs } of arrivals)
          controller.arrive(subscriptions[queue % subscriptions.length].workerQueueId, jobs);
        for (const pick of releases) {
          const before = ledger.snapshot();
          controller.releaseThenDispatch(pick);
          const after = ledger.snapshot();
          expectSnapshotAddsUp(after, slots, subscriptions, controller.held);
          expectStrictSlotsNotLentFurther(before, after);
        }
        controller.releaseEverything(slots);
      }),
      { numRuns: 300 },
    );
  });
});
