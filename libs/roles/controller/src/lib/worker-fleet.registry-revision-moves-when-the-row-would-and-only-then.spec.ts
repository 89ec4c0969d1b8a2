import { worker } from './dispatch.spec-support';
import type { HeldJob, WorkerSession } from './worker-fleet';

const STRICT_A = { workerQueueId: 'a', reservedPercent: 50, mode: 'STRICT' as const };
const ELASTIC_B = { workerQueueId: 'b', mode: 'ELASTIC' as const };

function job(session: WorkerSession, taskRunId: string, queueId: string): HeldJob {
  return {
    tenantId: 'main',
    executionId: `ex-${taskRunId}`,
    taskRunId,
    attempt: 1,
    workerQueueId: queueId,
    started: false,
    lease: session.ledger.acquire(queueId),
  };
}

/** The capacity part of the worker's registry row, which the revision stands for. */
function row(session: WorkerSession): string {
  return JSON.stringify({ draining: session.draining, queueIds: session.queueIds, capacity: session.capacitySnapshot() });
}

// The worker registry rebuilds a worker's row only when this number moved:
// every change its row shows (capacity used, draining, subscriptions) must
// move it, and a worker back where it was must not cost a rebuild.
describe("a worker session's registry revision", () => {
  it('moves when a job is held, when it finishes, when the stream ends, and on reconfiguration', () => {
    const { session } = worker('w-1', 4, [STRICT_A, ELASTIC_B]);
    const seen = [session.registryRevision()];
    const first = job(session, 'tr-1', 'a');
    session.hold(first);
    seen.push(session.registryRevision());
    const second = job(session, 'tr-2', 'b');
    session.hold(second);
    seen.push(session.registryRevision());
    session.finish(first);
    seen.push(session.registryRevision());
    session.reconfigure([{ ...STRICT_A, reservedPercent: 25 }, ELASTIC_B]);
    seen.push(session.registryRevision());
    session.releaseSlots();
    seen.push(session.registryRevision());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((left, right) => left - right));
  });

  it('stays where it was when a job is held and finished between two reads, as the row does', () => {
    const { session } = worker('w-1', 4, [STRICT_A, ELASTIC_B]);
    const running = job(session, 'tr-1', 'a');
    session.hold(running);
    const before = session.registryRevision();
    const rowBefore = row(session);
    for (let attempt = 2; attempt <= 5; attempt++) {
      const quick = job(session, `tr-${attempt}`, attempt % 2 === 0 ? 'a' : 'b');
      session.hold(quick);
      session.finish(quick);
    }
    expect(row(session)).toBe(rowBefore);
    expect(session.registryRevision()).toBe(before);
  });

  it('moves when the job held now is another one than at the last read, though as many slots are used', () => {
    const { session } = worker('w-1', 4, [STRICT_A, ELASTIC_B]);
    const first = job(session, 'tr-1', 'a');
    session.hold(first);
    const before = session.registryRevision();
    const rowBefore = row(session);
    session.finish(first);
    session.hold(job(session, 'tr-2', 'b'));
    expect(row(session)).not.toBe(rowBefore);
    expect(session.registryRevision()).toBeGreaterThan(before);
  });

  it('does not move for a job adopted over capacity, which the row does not show', () => {
    const { session } = worker('w-1', 1, [ELASTIC_B]);
    session.hold(job(session, 'tr-1', 'b'));
    const before = session.registryRevision();
    const rowBefore = row(session);
    session.adopt({ tenantId: 'main', executionId: 'ex-2', taskRunId: 'tr-2', attempt: 1, workerQueueId: 'b', started: true });
    expect(session.held.size).toBe(2);
    expect(row(session)).toBe(rowBefore);
    expect(session.registryRevision()).toBe(before);
  });

  it('moves when the worker starts draining, and not when nothing changed', () => {
    const { session } = worker('w-1', 4, [STRICT_A, ELASTIC_B]);
    const before = session.registryRevision();
    session.draining = false;
    session.credit += 3;
    expect(session.registryRevision()).toBe(before);
    session.draining = true;
    expect(session.draining).toBe(true);
    expect(session.registryRevision()).toBeGreaterThan(before);
    const draining = session.registryRevision();
    session.draining = true;
    expect(session.registryRevision()).toBe(draining);
  });
});
