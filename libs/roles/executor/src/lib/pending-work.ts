import { Logger } from '@nestjs/common';
import {
  encodeQueueMessage,
  executorEventCodec,
  jobMessageId,
  QUEUE_HEADERS,
  QUEUE_SCHEMA_VERSIONS,
  type EncodedQueueMessage,
} from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import type { ExecutionRecord } from '@lanner/model';
import type { Repositories } from '@lanner/repository';
import { isTerminal } from '@lanner/state-machine';
import { loadStoredExecution, NewerStoredState, UnreadableStoredState } from './stored-state';

/** Who lost the job, as the task run's attempt history shows it. */
const LOST_BY = 'restart';

/**
 * Rebuilds the executor's pending work from the repository after a restart,
 * for a queue that forgets its messages when the process stops (the in-process
 * queue of standalone): an execution the API created but the executor never
 * started gets its `execution.created` again, and every job that was queued or
 * running gets `task-run.worker-lost`, which puts it back on its queue with a new
 * attempt (the worker died with the process). A restart whose concurrency
 * admission was recorded but whose state was not gets its `execution.restart`
 * again, so its slot is never held by an execution that does not run. Timers
 * need nothing: they are rows.
 *
 * Never for Kafka: its messages survive a restart, and a job still waiting in its
 * topic would then run twice.
 */
export class PendingWork {
  private readonly logger = new Logger(PendingWork.name);

  constructor(
    private readonly repositories: Pick<Repositories, 'executions' | 'timers'>,
    private readonly queue: QueuePort,
    private readonly executorTopic: string,
  ) {}

  async rebuild(): Promise<void> {
    let executions = 0;
    let jobs = 0;
    for (const tenantId of await this.repositories.executions.listTenantsWithUnfinished()) {
      for (const record of await this.repositories.executions.listUnfinished(tenantId)) {
        let records: EncodedQueueMessage[];
        try {
          records = await this.messagesFor(tenantId, record.id);
        } catch (error) {
          if (!(error instanceof NewerStoredState || error instanceof UnreadableStoredState)) throw error;
          // Left as it is: its events name it again once an executor that reads its state runs.
          this.logger.error(
            { tenantId, executionId: record.id, reason: error.message },
            'pending work of an execution not rebuilt',
          );
          continue;
        }
        if (records.length === 0) continue;
        await this.queue.publish(this.executorTopic, records);
        executions += 1;
        jobs += records.filter((message) => message.headers[QUEUE_HEADERS.type] === 'task-run.worker-lost').length;
      }
    }
    if (executions > 0) this.logger.log({ executions, jobs }, 'pending work rebuilt from the repository');
  }

  /**
   * After maintenance mode: every execution the API (or the scheduler, or a
   * parent) created while the executor held new executions, still CREATED with
   * no stored state, gets its `execution.created` again (same message id, so a
   * start already under way ignores it). An execution that starts on a timer
   * (a retry) is left to it. Returns how many were announced.
   */
  async announceUnstarted(): Promise<number> {
    let announced = 0;
    for (const tenantId of await this.repositories.executions.listTenantsWithUnfinished()) {
      const messages: EncodedQueueMessage[] = [];
      for (const record of await this.repositories.executions.listUnfinished(tenantId)) {
        if (record.state !== 'CREATED') continue;
        const { stateData } = await this.repositories.executions.getExecutorState(tenantId, record.id);
        if (stateData !== null) continue;
        if ((await this.repositories.timers.listForExecution(tenantId, record.id)).length > 0) continue;
        messages.push(createdMessageOf(tenantId, record));
      }
      if (messages.length === 0) continue;
      await this.queue.publish(this.executorTopic, messages);
      announced += messages.length;
    }
    return announced;
  }

  private async messagesFor(tenantId: string, executionId: string): Promise<EncodedQueueMessage[]> {
    const { execution: record, stateData } = await this.repositories.executions.getExecutorState(tenantId, executionId);
    const occurredAt = new Date().toISOString();
    const created = () => createdMessageOf(tenantId, record);
    if (stateData === null) {
      // A row the executor never stored a state for: CREATED, or QUEUED/RUNNING when only its concurrency admission was recorded.
      // A CREATE_NEW_EXECUTION retry starts on its timer, at its delay, not now.
      if ((await this.repositories.timers.listForExecution(tenantId, executionId)).length > 0) return [];
      return [created()];
    }
    const execution = loadStoredExecution(executionId, stateData);
    // Waiting for a concurrency slot: asked again, it starts if one is free (the end that freed it may be lost).
    if (execution.state === 'QUEUED') return [created()];
    // Ended, yet its row holds or waits for a slot: a restart was admitted, then lost before its state was stored.
    // Asked again (at the version the requester saw, which the admission left unchanged), it runs or waits as admitted.
    if (isTerminal(execution.state)) {
      return [
        encodeQueueMessage(executorEventCodec, {
          schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.restart'],
          messageId: `${executionId}:restart:${record.version}`,
          type: 'execution.restart',
          occurredAt,
          payload: { tenantId, executionId, expectedVersion: record.version },
        }),
      ];
    }
    const messages: EncodedQueueMessage[] = [];
    execution.liveTaskRuns.forEach((_, taskRunId) => {
      const run = execution.taskRuns.get(taskRunId);
      const attempt = run?.attempts[run.attempts.length - 1];
      // Only jobs (runnable task runs with an attempt) were out on a queue or a worker; flowables live here.
      if (run === undefined || attempt === undefined || run.progress !== undefined) return;
      if (run.state !== 'SUBMITTED' && run.state !== 'RUNNING' && run.state !== 'KILLING') return;
      messages.push(
        encodeQueueMessage(executorEventCodec, {
          schemaVersion: QUEUE_SCHEMA_VERSIONS['task-run.worker-lost'],
          messageId: jobMessageId(taskRunId, attempt.attempt),
          type: 'task-run.worker-lost',
          occurredAt,
          payload: {
            tenantId,
            executionId,
            taskRunId,
            attempt: attempt.attempt,
            workerId: attempt.workerId ?? LOST_BY,
            reason: 'the process restarted before the job ended',
          },
        }),
      );
    });
    return messages;
  }
}

/** The `execution.created` of a stored execution row, as the API announced it (same message id). */
function createdMessageOf(tenantId: string, record: ExecutionRecord): EncodedQueueMessage {
  return encodeQueueMessage(executorEventCodec, {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['execution.created'],
    messageId: `${record.id}:created`,
    type: 'execution.created',
    occurredAt: new Date().toISOString(),
    payload: {
      tenantId,
      executionId: record.id,
      namespace: record.namespace,
      flowId: record.flowId,
      flowRevision: record.flowRevision,
      inputs: (record.inputs ?? {}) as Record<string, unknown>,
      labels: record.labels,
    },
  });
}
