import type { ControllerFrame } from '@lanner/frames';
import { ManualClock } from '../testing/manual-clock';
import { WorkerFleet, WorkerSession, type WorkerCall } from './worker-fleet';

/** The fleet only ever writes frames to a stream; the spec records them. */
function session(workerId: string, queueIds: string[], sent: ControllerFrame[] = []): WorkerSession {
  const stream = { write: (frame: ControllerFrame) => sent.push(frame) } as unknown as WorkerCall;
  const clock = new ManualClock();
  return new WorkerSession({
    workerId,
    workerName: workerId,
    workerGroupId: 'default',
    registrationTokenId: null,
    slots: 4,
    subscriptions: queueIds.map((workerQueueId) => ({ workerQueueId, mode: 'STRICT' as const })),
    labels: {},
    connectedAt: clock.now(),
    call: stream,
    clock,
  });
}

function job(taskRunId: string) {
  return { tenantId: 'main', executionId: 'ex-1', taskRunId, attempt: 1, workerQueueId: 'default', started: false };
}

describe('WorkerFleet', () => {
  it('picks, among the workers serving the queue, the one with the most credit', () => {
    const fleet = new WorkerFleet();
    const small = session('w-small', ['default']);
    const large = session('w-large', ['default']);
    const elsewhere = session('w-gpu', ['gpu']);
    small.credit = 1;
    large.credit = 3;
    elsewhere.credit = 10;
    [small, large, elsewhere].forEach((worker) => fleet.add(worker));

    expect(fleet.pickFor('default')).toBe(large);
    expect(fleet.pickFor('gpu')).toBe(elsewhere);
    expect(fleet.pickFor('etl')).toBeUndefined();
  });

  it('offers no job to a worker without credit, draining, or gone', () => {
    const fleet = new WorkerFleet();
    const noCredit = session('w-1', ['default']);
    const draining = session('w-2', ['default']);
    const gone = session('w-3', ['default']);
    draining.credit = 2;
    draining.draining = true;
    gone.credit = 2;
    [noCredit, draining, gone].forEach((worker) => fleet.add(worker));
    fleet.remove(gone);

    expect(fleet.pickFor('default')).toBeUndefined();
    expect(fleet.isConnected('w-3')).toBe(false);
  });

  it('knows which worker holds a job, and still places late log lines of a finished one', () => {
    const fleet = new WorkerFleet();
    const worker = session('w-1', ['default']);
    fleet.add(worker);
    const held = job('tr-1');
    worker.hold(held);

    expect(fleet.holderOf('tr-1', 1)).toBe(worker);
    expect(fleet.holderOf('tr-1', 2)).toBeUndefined();

    worker.finish(held);
    expect(fleet.holderOf('tr-1', 1)).toBeUndefined();
    expect(worker.knownJob('tr-1', 1)).toEqual({ job: held, finished: true });
  });

  it('sends nothing on a stream that has ended', () => {
    const sent: ControllerFrame[] = [];
    const worker = session('w-1', ['default'], sent);
    worker.send({ frame: { $case: 'kill', value: { taskRunId: 'tr-1', attempt: 1, reason: 'killed' } } });
    worker.closed = true;
    worker.send({ frame: { $case: 'kill', value: { taskRunId: 'tr-2', attempt: 1, reason: 'killed' } } });

    expect(sent).toHaveLength(1);
  });
});
