import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CapacityLedger, SlotLease } from './capacity-ledger';
import { DispatchPolicy } from './dispatch-policy';
import { QUEUES, subscriptionsArb } from './capacity.spec-support';

const workerArb = fc.record({ slots: fc.integer({ min: 1, max: 8 }), subscriptions: subscriptionsArb, eligible: fc.boolean() });

/** A dispatch, or the release of the n-th lease still held (modulo how many are held). */
const stepArb = fc.oneof(
  fc.constant({ kind: 'next' as const }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
);

const scenarioArb = fc.record({
  workers: fc.array(workerArb, { minLength: 1, maxLength: 8 }),
  waiting: fc.record({ q0: fc.nat(10), q1: fc.nat(10), q2: fc.nat(10) }),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 60 }),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/**
 * Plays the steps on a fresh fleet: with `indexed`, the policy is given the
 * ledgers with a floor; each answer is written as (worker, queue, slot kind, reason).
 */
function play(scenario: Scenario, indexed: boolean): string[] {
  const ledgers = scenario.workers.map((worker) => new CapacityLedger(worker.slots, worker.subscriptions));
  const withFloor = ledgers.flatMap((ledger, index) => (ledger.workerQueueIdsWithFloor.length > 0 ? [index] : []));
  const eligible = (index: number): boolean => scenario.workers[index].eligible;
  const policy = new DispatchPolicy();
  const waiting = new Map<string, number>(QUEUES.map((queue) => [queue, scenario.waiting[queue]]));
  const held: { ledgerIndex: number; lease: SlotLease }[] = [];
  const answers: string[] = [];
  for (const step of scenario.steps) {
    if (step.kind === 'release') {
      if (held.length === 0) continue;
      const [{ ledgerIndex, lease }] = held.splice(step.pick % held.length, 1);
      ledgers[ledgerIndex].release(lease);
      answers.push(`released ${ledgerIndex}`);
      continue;
    }
    const dispatch = policy.next(ledgers, waiting, eligible, indexed ? withFloor : undefined);
    if (dispatch === undefined) {
      answers.push('nothing');
      continue;
    }
    waiting.set(dispatch.workerQueueId, (waiting.get(dispatch.workerQueueId) ?? 0) - 1);
    held.push({ ledgerIndex: dispatch.ledgerIndex, lease: dispatch.lease });
    answers.push(`${dispatch.ledgerIndex}:${dispatch.workerQueueId}:${dispatch.lease.occupies}:${dispatch.reason}`);
  }
  return answers;
}

describe('dispatch policy: the list of ledgers with a floor', () => {
  it('changes no answer: the same workers, queues, slot kinds and reasons, dispatch after dispatch, with slots freed between', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        assert.deepEqual(play(scenario, true), play(scenario, false));
      }),
      { numRuns: 500 },
    );
  });

  it('still finds an own reserved slot on a worker far from the rotation start', () => {
    // Nine workers without a floor, then one with a 50 % floor for q0: the floor is served first, on its reserved slot.
    const ledgers = [
      ...Array.from({ length: 9 }, () => new CapacityLedger(4, [{ workerQueueId: 'q0', mode: 'ELASTIC' as const }])),
      new CapacityLedger(4, [{ workerQueueId: 'q0', reservedPercent: 50, mode: 'STRICT' }]),
    ];
    const dispatch = new DispatchPolicy().next(ledgers, new Map([['q0', 1]]), () => true, [9]);
    expect(dispatch).toMatchObject({ ledgerIndex: 9, workerQueueId: 'q0', reason: 'FLOOR' });
    expect(dispatch?.lease.occupies).toBe('RESERVED');
  });
});
