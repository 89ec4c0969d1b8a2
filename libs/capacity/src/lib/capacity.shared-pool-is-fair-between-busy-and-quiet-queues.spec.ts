import { CapacityLedger, SlotLease } from './capacity-ledger';
import { DispatchPolicy } from './dispatch-policy';

/**
 * Two queues without reservations share a 4-slot worker. Jobs arrive 100 to 1.
 * Each tick every running job finishes and the freed slots are dispatched.
 *
 * Fair share (max-min): when both queues have waiting work at a dispatch, each
 * is owed half of those dispatches; a queue with less demand than half is owed
 * all of its demand.
 */
function simulate(arrivalsPerTick: { busy: number; quiet: number }, dispatchCount: number) {
  const ledger = new CapacityLedger(4, [
    { workerQueueId: 'busy', mode: 'STRICT' },
    { workerQueueId: 'quiet', mode: 'STRICT' },
  ]);
  const policy = new DispatchPolicy();
  const waiting = new Map([
    ['busy', 0],
    ['quiet', 0],
  ]);
  const served = { busy: 0, quiet: 0 };
  const servedWhileBothWaited = { busy: 0, quiet: 0 };
  let contendedDispatches = 0;
  let longestQuietWait = 0;
  let quietWaitingSince = -1;
  let running: SlotLease[] = [];
  let dispatches = 0;
  for (let tick = 0; dispatches < dispatchCount; tick++) {
    running.forEach((lease) => ledger.release(lease));
    running = [];
    waiting.set('busy', (waiting.get('busy') ?? 0) + arrivalsPerTick.busy);
    waiting.set('quiet', (waiting.get('quiet') ?? 0) + arrivalsPerTick.quiet);
    if (quietWaitingSince < 0 && (waiting.get('quiet') ?? 0) > 0) quietWaitingSince = tick;
    while (dispatches < dispatchCount) {
      const bothWaited = (waiting.get('busy') ?? 0) > 0 && (waiting.get('quiet') ?? 0) > 0;
      const dispatch = policy.next([ledger], waiting);
      if (dispatch === undefined) break;
      const queue = dispatch.workerQueueId as 'busy' | 'quiet';
      waiting.set(queue, (waiting.get(queue) ?? 0) - 1);
      running.push(dispatch.lease);
      served[queue]++;
      dispatches++;
      if (bothWaited) {
        contendedDispatches++;
        servedWhileBothWaited[queue]++;
      }
      if (queue === 'quiet') {
        longestQuietWait = Math.max(longestQuietWait, tick - quietWaitingSince);
        quietWaitingSince = (waiting.get('quiet') ?? 0) > 0 ? tick : -1;
      }
    }
  }
  return { served, servedWhileBothWaited, contendedDispatches, longestQuietWait, waiting };
}

describe('the shared pool is split fairly across queues with waiting work', () => {
  it('overloaded 100:1 — both queues progress and each gets half of the contended dispatches (within 10%)', () => {
    // 303 jobs arrive per tick against 4 slots: both queues always have a backlog.
    const result = simulate({ busy: 300, quiet: 3 }, 10_000);
    const fairShare = result.contendedDispatches / 2;
    expect(result.contendedDispatches).toBeGreaterThan(9_000);
    for (const queue of ['busy', 'quiet'] as const) {
      expect(Math.abs(result.servedWhileBothWaited[queue] - fairShare)).toBeLessThanOrEqual(fairShare * 0.1);
    }
    expect(result.served.quiet).toBeGreaterThan(0);
  });

  it('under-demanding quiet queue 100:1 — it gets all of its demand, served in the tick its jobs arrive', () => {
    // The quiet queue asks for 1 slot per tick, less than its half of 4.
    const result = simulate({ busy: 100, quiet: 1 }, 10_000);
    expect(result.longestQuietWait).toBe(0);
    expect(result.waiting.get('quiet')).toBe(0);
    expect(result.served.quiet).toBe(2_500);
    expect(result.served.busy).toBe(7_500);
  });
});
