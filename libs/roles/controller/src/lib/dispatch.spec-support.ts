import type { CapacitySubscription } from '@lanner/capacity';
import type { ControllerFrame } from '@lanner/frames';
import { ManualClock } from '../testing/manual-clock';
import type { Clock } from './clock';
import { SlotArbiter, type Placement } from './slot-arbiter';
import { WorkerFleet, WorkerSession, type HeldJob, type WorkerCall } from './worker-fleet';

/** A worker stream that only records the frames the controller writes to it. */
export function recordingCall(sent: ControllerFrame[]): WorkerCall {
  return { write: (frame: ControllerFrame) => sent.push(frame) } as unknown as WorkerCall;
}

export interface SpecWorker {
  readonly session: WorkerSession;
  readonly sent: ControllerFrame[];
  /** Task run ids of the Job frames the worker received, in order. */
  jobs(): string[];
}

export function worker(
  workerId: string,
  slots: number,
  subscriptions: readonly CapacitySubscription[],
  workerGroupId = 'default',
  clock: Clock = new ManualClock(),
): SpecWorker {
  const sent: ControllerFrame[] = [];
  const session = new WorkerSession({
    workerId,
    workerName: workerId,
    workerGroupId,
    registrationTokenId: null,
    slots,
    subscriptions,
    labels: {},
    connectedAt: clock.now(),
    call: recordingCall(sent),
    clock,
  });
  return {
    session,
    sent,
    jobs: () => sent.flatMap((frame) => (frame.frame?.$case === 'job' ? [frame.frame.value.taskRunId] : [])),
  };
}

/**
 * Plays the controller's job handlers around the arbiter exactly as JobDispatch
 * does, minus Kafka and the running-job store: each job waits for a placement,
 * is held with its lease, and its Job frame is sent.
 */
export class SpecDispatch {
  readonly fleet = new WorkerFleet();
  readonly arbiter = new SlotArbiter(this.fleet);
  private seq = 0;
  /** Jobs placed, by task run id. */
  readonly placed = new Map<string, { placement: Placement; job: HeldJob }>();

  join(...workers: SpecWorker[]): void {
    for (const one of workers) this.fleet.add(one.session);
    this.arbiter.pump();
  }

  /** Publishes `count` jobs of the queue; each is sent when the arbiter places it. */
  submit(queueId: string, count: number): string[] {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const taskRunId = `${queueId}-${++this.seq}`;
      ids.push(taskRunId);
      void this.arbiter.place(queueId).then(
        (placement) => {
          const job: HeldJob = {
            tenantId: 'main',
            executionId: `ex-${taskRunId}`,
            taskRunId,
            attempt: 1,
            workerQueueId: queueId,
            started: false,
            lease: placement.lease,
          };
          placement.session.hold(job);
          placement.session.send({
            frame: {
              $case: 'job',
              value: {
                taskRunId,
                attempt: 1,
                executionId: job.executionId,
                queueId,
                taskType: 'io.kestra.plugin.core.log.Log',
                taskDefinitionJson: '{}',
                timeout: undefined,
                deadline: undefined,
                correlationId: '',
                tenantId: 'main',
                namespace: 'company.team',
                flowId: 'spec',
                taskId: 'hello',
              },
            },
          });
          this.placed.set(taskRunId, { placement, job });
        },
        () => undefined,
      );
    }
    return ids;
  }

  /** The worker reports the job's result: its slot frees (and it grants the credit back, as a worker does). */
  finish(taskRunId: string): void {
    const entry = this.placed.get(taskRunId);
    if (!entry) throw new Error(`${taskRunId} was never placed`);
    entry.placement.session.finish(entry.job);
    entry.placement.session.credit += 1;
    this.arbiter.pump();
  }

  /** The queue of the slot a placed job occupies (its own, or the lender's for a borrowed one). */
  slotOwner(taskRunId: string): string | undefined {
    const lease = this.placed.get(taskRunId)?.placement.lease;
    return lease?.occupies === 'BORROWED' ? lease.lenderQueueId : lease?.workerQueueId;
  }
}

/** Lets the handlers whose placement resolved run their continuation. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
