import { CapacityLedger } from './capacity-ledger';
import { DispatchPolicy } from './dispatch-policy';
import { drain, standing } from './capacity.spec-support';

describe('when slots free, reserved floors are served first, then the shared pool round robin', () => {
  it('fills each waiting floor before handing out shared slots, whatever the arrival order', () => {
    const ledger = new CapacityLedger(8, [
      { workerQueueId: 'bulk', mode: 'STRICT' },
      { workerQueueId: 'critical', reservedPercent: 25, mode: 'STRICT' },
      { workerQueueId: 'standard', reservedPercent: 25, mode: 'STRICT' },
    ]);
    const waiting = new Map([
      ['bulk', 50],
      ['critical', 50],
      ['standard', 50],
    ]);
    const dispatches = drain(new DispatchPolicy(), [ledger], waiting);
    expect(dispatches.slice(0, 4).every((dispatch) => dispatch.reason === 'FLOOR')).toBe(true);
    expect(
      dispatches
        .slice(0, 4)
        .map((dispatch) => dispatch.workerQueueId)
        .sort(),
    ).toEqual(['critical', 'critical', 'standard', 'standard']);
    // The 4 shared slots go one per queue in turn.
    expect(dispatches.slice(4).map((dispatch) => [dispatch.workerQueueId, dispatch.reason])).toEqual([
      ['bulk', 'ROUND_ROBIN'],
      ['critical', 'ROUND_ROBIN'],
      ['standard', 'ROUND_ROBIN'],
      ['bulk', 'ROUND_ROBIN'],
    ]);
    expect(ledger.snapshot().free).toBe(0);
  });

  it('serves the largest floor shortfall first', () => {
    const ledger = new CapacityLedger(10, [
      { workerQueueId: 'small', reservedPercent: 20, mode: 'STRICT' },
      { workerQueueId: 'large', reservedPercent: 60, mode: 'STRICT' },
    ]);
    const waiting = new Map([
      ['small', 1],
      ['large', 1],
    ]);
    expect(new DispatchPolicy().next([ledger], waiting)?.workerQueueId).toBe('large');
  });

  it('a queue already at its floor competes for a freed shared slot in the round robin, not as a floor', () => {
    const ledger = new CapacityLedger(4, [
      { workerQueueId: 'steady', reservedPercent: 50, mode: 'STRICT' },
      { workerQueueId: 'greedy', mode: 'STRICT' },
    ]);
    const policy = new DispatchPolicy();
    const waiting = new Map([['greedy', 10]]);
    const greedy = drain(policy, [ledger], waiting);
    expect(greedy).toHaveLength(2);
    waiting.set('steady', 3);
    expect(drain(policy, [ledger], waiting).map((dispatch) => dispatch.workerQueueId)).toEqual(['steady', 'steady']);
    ledger.release(greedy[0].lease);
    const next = policy.next([ledger], waiting);
    // steady is at its floor (2 of 2), so the freed shared slot is shared round robin.
    expect(next?.reason).toBe('ROUND_ROBIN');
    expect(standing(ledger, 'steady').used).toBe(2);
  });

  it('returns nothing when no waiting queue can take a slot, and nothing for queues no worker subscribes to', () => {
    const ledger = new CapacityLedger(1, [{ workerQueueId: 'q', mode: 'STRICT' }]);
    const policy = new DispatchPolicy();
    expect(policy.next([ledger], new Map([['elsewhere', 5]]))).toBeUndefined();
    expect(policy.next([ledger], new Map([['q', 0]]))).toBeUndefined();
    expect(policy.next([ledger], new Map([['q', 2]]))).toBeDefined();
    expect(policy.next([ledger], new Map([['q', 1]]))).toBeUndefined();
  });

  it('gives the same answers to the same calls', () => {
    const run = () => {
      const ledger = new CapacityLedger(6, [
        { workerQueueId: 'a', reservedPercent: 30, mode: 'ELASTIC' },
        { workerQueueId: 'b', mode: 'ELASTIC' },
        { workerQueueId: 'c', reservedPercent: 30, mode: 'STRICT' },
      ]);
      const dispatches = drain(
        new DispatchPolicy(),
        [ledger],
        new Map([
          ['b', 9],
          ['a', 1],
          ['c', 4],
        ]),
      );
      return dispatches.map((dispatch) => `${dispatch.workerQueueId}:${dispatch.lease.occupies}:${dispatch.reason}`);
    };
    expect(run()).toEqual(run());
  });
});
