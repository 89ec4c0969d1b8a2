import { encodeQueueMessage, JobState, jobMessageId, workerJobCodec, type WorkerFrame } from '@lanner/frames';
import { systemClock } from '../lib/system-clock';

// Jobs as the executor publishes them on a worker queue: each a Log task of
// namespace company.team, first attempt.

export interface SpecJob {
  readonly taskRunId: string;
  readonly executionId: string;
  readonly workerQueueId: string;
  readonly flowId: string;
  readonly taskId: string;
  /** What the Log task would print. */
  readonly message: string;
  readonly correlationId?: string;
  readonly timeoutMs?: number;
}

/** The `worker.job` record of one job, ready for `queue.publish(workerJobsTopic(queue), [...])`. */
export function workerJobRecord(job: SpecJob) {
  return encodeQueueMessage(workerJobCodec, {
    schemaVersion: 1,
    messageId: jobMessageId(job.taskRunId, 1),
    type: 'worker.job',
    // The controller under test runs on the host's clock.
    occurredAt: systemClock.now().toISOString(),
    ...(job.correlationId === undefined ? {} : { correlationId: job.correlationId }),
    payload: {
      tenantId: 'main',
      executionId: job.executionId,
      taskRunId: job.taskRunId,
      attempt: 1,
      workerQueueId: job.workerQueueId,
      namespace: 'company.team',
      flowId: job.flowId,
      taskId: job.taskId,
      taskType: 'io.kestra.plugin.core.log.Log',
      taskDefinition: { id: job.taskId, type: 'io.kestra.plugin.core.log.Log', message: job.message },
      ...(job.timeoutMs === undefined ? {} : { timeoutMs: job.timeoutMs }),
    },
  });
}

/** What a worker's `jobResult` frame says of one attempt; the rest as a worker sends it for a task that ran to its end. */
export interface SpecJobResult {
  readonly taskRunId: string;
  readonly attempt: number;
  /** The slots given back with the result (0: they come in a Credit frame of their own, as a 1.1 worker sends them). */
  readonly credit: number;
  readonly startedAt: Date | undefined;
  readonly endedAt: Date;
  readonly state?: JobState;
  readonly outputsJson?: string;
  readonly errorMessage?: string;
}

/** The `jobResult` frame of one attempt, ready for `FakeWorker.send`. */
export function jobResultFrame(result: SpecJobResult): WorkerFrame {
  return {
    frame: {
      $case: 'jobResult',
      value: {
        taskRunId: result.taskRunId,
        attempt: result.attempt,
        state: result.state ?? JobState.SUCCESS,
        outputsJson: result.outputsJson ?? '{}',
        errorMessage: result.errorMessage ?? '',
        cacheHit: false,
        deadlinePassed: false,
        credit: result.credit,
        startedAt: result.startedAt,
        endedAt: result.endedAt,
      },
    },
  };
}
