import { ManualClock } from '../testing/manual-clock';
import { worker } from './dispatch.spec-support';
import { FINISHED_JOB_MEMORY_MS, type HeldJob, type WorkerSession } from './worker-fleet';

const ELASTIC_A = { workerQueueId: 'a', mode: 'ELASTIC' as const };

function held(session: WorkerSession, taskRunId: string): HeldJob {
  const job: HeldJob = {
    tenantId: 'main',
    executionId: `ex-${taskRunId}`,
    taskRunId,
    attempt: 1,
    workerQueueId: 'a',
    started: true,
    lease: session.ledger.acquire('a'),
  };
  session.hold(job);
  return job;
}

function runJob(session: WorkerSession, taskRunId: string): void {
  session.finish(held(session, taskRunId));
}

// A finished job stays known to its worker's session for a while, so metrics
// trailing its result are placed and a duplicate result changes nothing; past
// that it is forgotten, so a worker's memory does not grow with the jobs it ran.
describe("a worker session's memory of finished jobs", () => {
  const start = Date.parse('2026-11-30T12:00:00Z');
  let clock: ManualClock;

  beforeEach(() => (clock = new ManualClock(start)));

  it('knows a job just finished as finished, for trailing frames and duplicate results', () => {
    const { session } = worker('w-1', 4, [ELASTIC_A], 'default', clock);
    runJob(session, 'tr-1');
    clock.set(start + FINISHED_JOB_MEMORY_MS - 1);
    session.forgetFinishedJobs();
    expect(session.knownJob('tr-1', 1)).toEqual({ job: expect.objectContaining({ executionId: 'ex-tr-1' }), finished: true });
  });

  it('forgets it once FINISHED_JOB_MEMORY_MS has passed, even when no other job finishes (each heartbeat sweeps)', () => {
    const { session } = worker('w-1', 4, [ELASTIC_A], 'default', clock);
    runJob(session, 'tr-1');
    clock.set(start + FINISHED_JOB_MEMORY_MS);
    session.forgetFinishedJobs();
    expect(session.knownJob('tr-1', 1)).toBeUndefined();
  });

  it('after thousands of jobs remembers only those of the last FINISHED_JOB_MEMORY_MS, and a running job stays held', () => {
    const { session } = worker('w-1', 4, [ELASTIC_A], 'default', clock);
    // 3,000 jobs, one every 200 ms: 10 minutes of work.
    for (let index = 0; index < 3_000; index++) {
      clock.set(start + index * 200);
      runJob(session, `tr-${index}`);
    }
    const running = held(session, 'tr-running');
    const remembered = Array.from({ length: 3_000 }, (_, index) => session.knownJob(`tr-${index}`, 1)).filter(
      (known) => known !== undefined,
    );
    expect(remembered).toHaveLength(FINISHED_JOB_MEMORY_MS / 200);
    expect(session.knownJob('tr-2999', 1)?.finished).toBe(true);
    expect(session.knownJob('tr-0', 1)).toBeUndefined();
    expect(session.knownJob('tr-running', 1)).toEqual({ job: running, finished: false });
  });

  it('counts a job finished twice from its last finish, and still forgets the jobs finished in between on time', () => {
    const { session } = worker('w-1', 4, [ELASTIC_A], 'default', clock);
    runJob(session, 'tr-a');
    clock.set(start + 1_000);
    runJob(session, 'tr-b');
    clock.set(start + 2_000);
    runJob(session, 'tr-a'); // held and finished again on this stream (a redelivery)
    clock.set(start + 1_000 + FINISHED_JOB_MEMORY_MS);
    session.forgetFinishedJobs();
    expect(session.knownJob('tr-b', 1)).toBeUndefined();
    expect(session.knownJob('tr-a', 1)?.finished).toBe(true);
  });

  it('keeps at most 256 however fast jobs finish', () => {
    const { session } = worker('w-1', 4, [ELASTIC_A], 'default', clock);
    for (let index = 0; index < 1_000; index++) runJob(session, `tr-${index}`);
    const remembered = Array.from({ length: 1_000 }, (_, index) => session.knownJob(`tr-${index}`, 1)).filter(
      (known) => known !== undefined,
    );
    expect(remembered).toHaveLength(256);
    expect(session.knownJob('tr-999', 1)?.finished).toBe(true);
    expect(session.knownJob('tr-743', 1)).toBeUndefined();
  });
});
