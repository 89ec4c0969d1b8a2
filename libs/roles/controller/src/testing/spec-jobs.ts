import { encodeQueueMessage, jobMessageId, workerJobCodec } from '@lanner/frames';
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
