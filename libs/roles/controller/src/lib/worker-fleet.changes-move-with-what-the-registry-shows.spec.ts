import { worker } from './dispatch.spec-support';
import type { HeldJob } from './worker-fleet';

const STRICT_A = { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' as const };
const ELASTIC_B = { workerQueueId: 'b', mode: 'ELASTIC' as const };

function job(session: ReturnType<typeof worker>['session'], taskRunId: string, queueId: string): HeldJob {
  return { tenantId: 'main', executionId: `ex-${taskRunId}`, taskRunId, attempt: 1, workerQueueId: queueId, started: false, lease: session.ledger.acquire(queueId) };
}

// The worker registry rebuilds a worker's row only when this number moved, so
// every change its row shows (capacity used, draining, subscriptions) must move it.
describe('a worker session counts every change the worker registry shows', () => {
  it('moves when a job is held, when it finishes, when the stream ends, and on reconfiguration', () => {
    const { session } = worker('w-1', 4, [STRICT_A, ELASTIC_B]);
    const seen = [session.changes];
    const held = job(session, 'tr-1', 'a');
    session.hold(held);
    seen.push(session.changes);
    session.finish(held);
    seen.push(session.changes);
    session.adopt({ ...job(session, 'tr-2', 'b'), lease: undefined });
    seen.push(session.changes);
    session.reconfigure([{ ...STRICT_A, reservedPercent: 25 }, ELASTIC_B]);
    seen.push(session.changes);
    session.releaseSlots();
    seen.push(session.changes);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((left, right) => left - right));
  });

  it('moves when the worker starts draining, and not when nothing changed', () => {
    const { session } = worker('w-1', 4, [STRICT_A, ELASTIC_B]);
    const before = session.changes;
    session.draining = false;
    session.credit += 3;
    expect(session.changes).toBe(before);
    session.draining = true;
    expect(session.draining).toBe(true);
    expect(session.changes).toBeGreaterThan(before);
    const draining = session.changes;
    session.draining = true;
    expect(session.changes).toBe(draining);
  });
});
