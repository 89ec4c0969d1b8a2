import type { ServiceInstanceRecord, ServiceInstanceRecordState } from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import type { Repositories } from '@lanner/repository';
import { ServiceInstanceIdentity } from '@lanner/runtime';
import { executorOptions } from './executor-options';
import { DEFAULT_LIVENESS_COORDINATOR_SETTINGS, LIVENESS_COORDINATOR_LOCK, LivenessCoordinator } from './liveness-coordinator';

// The coordinator against in-memory stores: a lock store whose lease another
// executor takes between two actions of a pass (as when this process is
// paused mid-pass past the lease), and instance/job stores that record every
// write, so the spec sees what the deposed coordinator still did.

const { missedHeartbeatTimeoutMs, disconnectedGraceMs } = DEFAULT_LIVENESS_COORDINATOR_SETTINGS.timings;
const { leaseTtlMs } = DEFAULT_LIVENESS_COORDINATOR_SETTINGS;

class FakeLocks {
  lease: { holder: string; expiresAt: Date } | null = null;
  async tryAcquire(name: string, holder: string, ttlMs: number, at: Date): Promise<boolean> {
    expect(name).toBe(LIVENESS_COORDINATOR_LOCK);
    if (this.lease !== null && this.lease.holder !== holder && this.lease.expiresAt > at) return false;
    this.lease = { holder, expiresAt: new Date(at.getTime() + ttlMs) };
    return true;
  }
  async get(): Promise<{ holder: string; expiresAt: Date } | null> {
    return this.lease;
  }
  async release(_name: string, holder: string): Promise<void> {
    if (this.lease?.holder === holder) this.lease = null;
  }
  /** Another executor takes the lease (this one's expired while it was paused). */
  takenBy(holder: string, at: Date): void {
    this.lease = { holder, expiresAt: new Date(at.getTime() + leaseTtlMs) };
  }
}

function instance(id: string, state: ServiceInstanceRecordState, heartbeatAt: Date, stateChangedAt: Date): ServiceInstanceRecord {
  return { id, role: 'CONTROLLER', host: 'node', state, startedAt: new Date(0), heartbeatAt, stateChangedAt, metadata: {} };
}

function harness() {
  const locks = new FakeLocks();
  const writes: string[] = [];
  const rows = new Map<string, ServiceInstanceRecord>();
  /** Runs right before the named write, once (the "pause" between two actions). */
  const before = new Map<string, () => void>();
  const write = (name: string) => {
    before.get(name)?.();
    before.delete(name);
    writes.push(name);
  };
  const repositories = {
    clusterLocks: locks,
    serviceInstances: {
      async transitionSilent(
        from: readonly ServiceInstanceRecordState[],
        to: ServiceInstanceRecordState,
        silentBefore: Date,
        at: Date,
        stateChangedBefore?: Date,
      ): Promise<ServiceInstanceRecord[]> {
        write(`transition:${to}`);
        const moved: ServiceInstanceRecord[] = [];
        for (const row of rows.values()) {
          if (!from.includes(row.state) || row.heartbeatAt >= silentBefore) continue;
          if (stateChangedBefore !== undefined && row.stateChangedAt >= stateChangedBefore) continue;
          const next = { ...row, state: to, stateChangedAt: at };
          rows.set(row.id, next);
          moved.push(next);
        }
        return moved;
      },
      async purge(): Promise<number> {
        write('purge:instances');
        return 0;
      },
    },
    connectedWorkers: {
      async removeController(id: string): Promise<void> {
        write(`remove-workers-of:${id}`);
      },
      async purgeStale(): Promise<number> {
        write('purge:workers');
        return 0;
      },
    },
    runningJobs: {
      async listOrphaned(): Promise<never[]> {
        write('requeue');
        return [];
      },
      async dropSettledResultMarks(): Promise<void> {
        write('drop-result-marks');
      },
    },
    maintenance: {
      async get() {
        write('read-maintenance');
        return { enabled: false, enteredAt: null, enteredBy: null, exitedAt: null, releasedAt: null };
      },
    },
  };
  const queue = { publish: jest.fn(async () => undefined) };
  const coordinator = new LivenessCoordinator(
    repositories as unknown as Repositories,
    queue as unknown as QueuePort,
    executorOptions(),
    new ServiceInstanceIdentity('executor'),
    DEFAULT_LIVENESS_COORDINATOR_SETTINGS,
  );
  return { coordinator, locks, writes, rows, before };
}

const ALL_ACTIONS = [
  'transition:DISCONNECTED',
  'transition:NOT_RUNNING',
  'requeue',
  'purge:workers',
  'purge:instances',
  'drop-result-marks',
  'read-maintenance',
];

describe('a liveness coordinator deposed during a pass', () => {
  const t0 = new Date('2026-01-01T00:00:00Z').getTime();
  const at = (ms: number) => new Date(t0 + ms);

  it('does every action of a pass while it holds the lease', async () => {
    const { coordinator, writes } = harness();
    for (let ms = 0; ms < missedHeartbeatTimeoutMs; ms += 2_000) await coordinator.pass(at(ms));
    writes.length = 0;
    expect(await coordinator.pass(at(missedHeartbeatTimeoutMs))).toMatchObject({ leader: true });
    expect(writes).toEqual(ALL_ACTIONS);
  });

  it('stops before its next action once another executor took the lease, and writes nothing more', async () => {
    const { coordinator, locks, writes, rows } = harness();
    // Passes every 2 s since the start: it has watched long enough to judge.
    for (let ms = 0; ms <= missedHeartbeatTimeoutMs + disconnectedGraceMs; ms += 2_000) await coordinator.pass(at(ms));
    const now = missedHeartbeatTimeoutMs + disconnectedGraceMs + 2_000;
    // A controller silent for long and DISCONNECTED past the grace: this pass would declare it NOT_RUNNING.
    rows.set('controller-a', instance('controller-a', 'DISCONNECTED', at(0), at(1_000)));
    writes.length = 0;
    // Between the DISCONNECTED and the NOT_RUNNING actions the process is paused past its lease; another takes over.
    const realGet = locks.get.bind(locks);
    let reads = 0;
    locks.get = async () => {
      reads += 1;
      if (reads === 2) locks.takenBy('executor-other', at(now + leaseTtlMs));
      return realGet();
    };

    const pass = await coordinator.pass(at(now));

    expect(writes).toEqual(['transition:DISCONNECTED']);
    expect(pass).toMatchObject({ leader: false, deposed: true, notRunning: [], requeued: [] });
    expect(rows.get('controller-a')?.state).toBe('DISCONNECTED');
    expect(coordinator.isLeader).toBe(false);
    // Its next pass finds the lease held by the other one and does nothing at all.
    writes.length = 0;
    locks.get = realGet;
    expect(await coordinator.pass(at(now + 2_000))).toMatchObject({ leader: false });
    expect(writes).toEqual([]);
    expect(locks.lease?.holder).toBe('executor-other');
  });

  it('stands down when its lease is about to expire mid-pass (a pause of the process counts), even if nobody took it', async () => {
    const { coordinator, locks, writes } = harness();
    await coordinator.pass(at(0));
    writes.length = 0;
    // The pass's clock says 2 s, but the process then stood still for the length of the lease.
    const realNow = Date.now;
    const start = realNow();
    let first = true;
    const get = locks.get.bind(locks);
    locks.get = async () => {
      if (first) {
        first = false;
        Date.now = () => start + leaseTtlMs;
      }
      return get();
    };
    try {
      const pass = await coordinator.pass(at(2_000));
      expect(pass).toMatchObject({ leader: false, deposed: true });
      expect(writes).toEqual([]);
    } finally {
      Date.now = realNow;
    }
  });

  it('does not judge silent instances until it has watched them for the missed-heartbeat timeout with working database access', async () => {
    const { coordinator, rows, writes } = harness();
    // Everyone's heartbeats stopped at 0: the database was down (for everyone, this coordinator included).
    rows.set('controller-a', instance('controller-a', 'RUNNING', at(0), at(0)));
    rows.set('api-a', instance('api-a', 'DISCONNECTED', at(0), at(0)));
    const back = 60_000;
    // The database is back: the first good pass only starts the watch.
    expect(await coordinator.pass(at(back))).toMatchObject({ leader: true, disconnected: [], notRunning: [] });
    expect(writes.filter((write) => write.startsWith('transition'))).toEqual([]);
    for (let ms = back + 2_000; ms < back + missedHeartbeatTimeoutMs; ms += 2_000) {
      expect(await coordinator.pass(at(ms))).toMatchObject({ disconnected: [], notRunning: [] });
    }
    expect(rows.get('api-a')?.state).toBe('DISCONNECTED');
    // An instance that stayed silent for the whole watch is judged then.
    expect(await coordinator.pass(at(back + missedHeartbeatTimeoutMs))).toMatchObject({
      disconnected: ['controller-a'],
      notRunning: ['api-a'],
    });
  });

  it('starts watching anew after a gap in its own passes longer than the missed-heartbeat timeout', async () => {
    const { coordinator, rows } = harness();
    for (let ms = 0; ms <= missedHeartbeatTimeoutMs; ms += 2_000) await coordinator.pass(at(ms));
    rows.set('controller-a', instance('controller-a', 'RUNNING', at(0), at(0)));
    // This process was paused for a minute: what it missed is not the others' silence.
    const resumed = missedHeartbeatTimeoutMs + 60_000;
    expect(await coordinator.pass(at(resumed))).toMatchObject({ leader: true, disconnected: [] });
    expect(rows.get('controller-a')?.state).toBe('RUNNING');
  });

  it('starts watching anew when its lease write answered late (the database was away until then)', async () => {
    const { coordinator, locks, rows } = harness();
    for (let ms = 0; ms <= missedHeartbeatTimeoutMs; ms += 2_000) await coordinator.pass(at(ms));
    rows.set('controller-a', instance('controller-a', 'RUNNING', at(0), at(0)));
    // The next lease write hangs for 6 s, more than half the missed-heartbeat timeout (the database was
    // unreachable), then succeeds with time left on the lease.
    const tryAcquire = locks.tryAcquire.bind(locks);
    const realNow = Date.now;
    const start = realNow();
    locks.tryAcquire = async (...args: Parameters<FakeLocks['tryAcquire']>) => {
      Date.now = () => start + 6_000;
      return tryAcquire(...args);
    };
    try {
      expect(await coordinator.pass(at(missedHeartbeatTimeoutMs + 2_000))).toMatchObject({ leader: true, disconnected: [] });
      expect(rows.get('controller-a')?.state).toBe('RUNNING');
    } finally {
      Date.now = realNow;
    }
  });
});
