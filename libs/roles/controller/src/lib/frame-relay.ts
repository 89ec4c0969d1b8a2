import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  encodeQueueMessage,
  executorEventCodec,
  jobMessageId,
  JobState,
  LogLevel,
  logBatchCodec,
  MAX_LOG_MESSAGE_BYTES,
  metricBatchCodec,
  MetricType,
  QUEUE_SCHEMA_VERSIONS,
  QueueTopics,
  triggerResultCodec,
  type JobResult,
  type JobStarted,
  type LogBatchMessage,
  type LogEntry,
  type Metric,
  type WorkerJobMessage,
} from '@lanner/frames';
import { describeUnstorableText, findUnstorableText, toStorableText, type WorkerRestartStrategy } from '@lanner/model';
import type { QueuePort } from '@lanner/queue';
import { QUEUE } from '@lanner/runtime';
import { CLOCK, type Clock } from './clock';
import { ControllerIdentity } from './controller-settings';
import type { HeldJob, WorkerSession } from './worker-fleet';

export type JobStateName = 'SUCCESS' | 'WARNING' | 'FAILED' | 'KILLED';
type LogLevelName = LogBatchMessage['payload']['entries'][number]['level'];

const JOB_STATES: Partial<Record<JobState, JobStateName>> = {
  [JobState.SUCCESS]: 'SUCCESS',
  [JobState.WARNING]: 'WARNING',
  [JobState.FAILED]: 'FAILED',
  [JobState.KILLED]: 'KILLED',
};

const LOG_LEVELS: Partial<Record<LogLevel, LogLevelName>> = {
  [LogLevel.TRACE]: 'TRACE',
  [LogLevel.DEBUG]: 'DEBUG',
  [LogLevel.INFO]: 'INFO',
  [LogLevel.WARN]: 'WARN',
  [LogLevel.ERROR]: 'ERROR',
};

const METRIC_TYPES: Partial<Record<MetricType, 'COUNTER' | 'TIMER'>> = {
  [MetricType.COUNTER]: 'COUNTER',
  [MetricType.TIMER]: 'TIMER',
};

function envelope<T extends keyof typeof QUEUE_SCHEMA_VERSIONS>(
  type: T,
  messageId: string,
  correlationId: string | undefined,
  occurredAt: Date,
) {
  return {
    schemaVersion: QUEUE_SCHEMA_VERSIONS[type],
    messageId,
    type,
    occurredAt: occurredAt.toISOString(),
    ...(correlationId ? { correlationId } : {}),
  };
}

function parseOutputs(outputsJson: string): Record<string, unknown> | undefined {
  if (outputsJson.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(outputsJson);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Cuts a line to the log schema's limit on a character boundary (the worker should already have). */
function withinLogLimit(message: string): string {
  if (Buffer.byteLength(message, 'utf8') <= MAX_LOG_MESSAGE_BYTES) return message;
  let cut = message.slice(0, MAX_LOG_MESSAGE_BYTES);
  while (Buffer.byteLength(cut, 'utf8') > MAX_LOG_MESSAGE_BYTES) cut = cut.slice(0, -1);
  return cut;
}

/**
 * Turns what workers report on their streams into queue messages: job
 * progress and outcomes on `lanner.executor` (key: execution id, message id:
 * task-run id:attempt), log lines on `lanner.logs`, metrics on `lanner.metrics`.
 */
@Injectable()
export class FrameRelay {
  private readonly logger = new Logger(FrameRelay.name);

  constructor(
    @Inject(QUEUE) private readonly queue: QueuePort,
    private readonly identity: ControllerIdentity,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async started(worker: WorkerSession, job: HeldJob, frame: JobStarted): Promise<void> {
    // A trigger evaluation has no task run in the executor: only its outcome matters, to the scheduler.
    if (job.triggerEvaluation === true) return;
    const message = {
      ...envelope('task-run.started', jobMessageId(job.taskRunId, job.attempt), job.correlationId, this.clock.now()),
      payload: {
        tenantId: job.tenantId,
        executionId: job.executionId,
        taskRunId: job.taskRunId,
        attempt: job.attempt,
        workerQueueId: job.workerQueueId,
        workerId: worker.workerId,
        startedAt: (frame.startedAt ?? this.clock.now()).toISOString(),
      },
    };
    await this.queue.publish(QueueTopics.executor, [encodeQueueMessage(executorEventCodec, message)]);
  }

  /** Relays the outcome; returns the state recorded (FAILED when the worker's report was unusable). */
  async result(worker: WorkerSession, job: HeldJob, frame: JobResult): Promise<JobStateName> {
    const outputs = parseOutputs(frame.outputsJson);
    let state = JOB_STATES[frame.state];
    let errorMessage = frame.errorMessage === '' ? undefined : toStorableText(frame.errorMessage);
    const unstorable = outputs === undefined ? undefined : findUnstorableText(outputs);
    if (outputs === undefined) {
      state = 'FAILED';
      errorMessage = 'the worker reported outputs that are not a JSON object';
    } else if (unstorable !== undefined) {
      // Stored as they are, these outputs would fail every write of the task run: the attempt fails instead, saying where.
      state = 'FAILED';
      errorMessage = `the task's ${describeUnstorableText(unstorable, 'output')}, which Lanner cannot store; encode binary data (for example as base64) before returning it`;
    } else if (state === undefined) {
      state = 'FAILED';
      errorMessage = 'the worker reported a result without a known state';
    }
    await this.publishResult(job, worker.workerId, {
      state,
      outputs: outputs !== undefined && unstorable === undefined ? outputs : {},
      errorMessage,
      cacheHit: frame.cacheHit,
      startedAt: frame.startedAt?.toISOString(),
      endedAt: (frame.endedAt ?? this.clock.now()).toISOString(),
      deadlinePassed: state === 'FAILED' && frame.deadlinePassed,
    });
    return state;
  }

  /**
   * A job that no worker will run (too large, killed before it was sent, past
   * its deadline): its outcome is reported with the controller standing in for
   * the worker id, since no worker ever held it. `deadlinePassed` lets the
   * executor word a late job as its own timeout.
   */
  async jobRefused(
    job: WorkerJobMessage,
    errorMessage: string,
    state: 'FAILED' | 'KILLED' = 'FAILED',
    deadlinePassed = false,
  ): Promise<void> {
    const { payload } = job;
    await this.publishResult(
      {
        tenantId: payload.tenantId,
        executionId: payload.executionId,
        taskRunId: payload.taskRunId,
        attempt: payload.attempt,
        workerQueueId: payload.workerQueueId,
        correlationId: job.correlationId,
        ...(payload.triggerEvaluation === true ? { triggerEvaluation: true } : {}),
        started: false,
      },
      this.identity.id,
      { state, outputs: {}, errorMessage, cacheHit: false, endedAt: this.clock.now().toISOString(), deadlinePassed },
    );
  }

  async workerLost(workerId: string, job: HeldJob, reason: string, restartStrategy?: WorkerRestartStrategy): Promise<void> {
    if (job.triggerEvaluation === true) {
      // The scheduler evaluates the trigger again; it only needs to know this evaluation ended.
      await this.publishResult(job, workerId, {
        state: 'FAILED',
        outputs: {},
        errorMessage: reason,
        cacheHit: false,
        endedAt: this.clock.now().toISOString(),
      });
      return;
    }
    const message = {
      ...envelope('task-run.worker-lost', jobMessageId(job.taskRunId, job.attempt), job.correlationId, this.clock.now()),
      payload: {
        tenantId: job.tenantId,
        executionId: job.executionId,
        taskRunId: job.taskRunId,
        attempt: job.attempt,
        workerId,
        reason,
        ...(restartStrategy === undefined ? {} : { restartStrategy }),
      },
    };
    await this.queue.publish(QueueTopics.executor, [encodeQueueMessage(executorEventCodec, message)]);
  }

  /** One `log.batch` per execution in the frame; lines of jobs this worker never held are dropped. */
  async logs(worker: WorkerSession, entries: readonly LogEntry[]): Promise<void> {
    const batches = this.groupByExecution(worker, entries, 'log line', (entry) => ({
      taskRunId: entry.taskRunId,
      attempt: entry.attempt,
      level: LOG_LEVELS[entry.level] ?? 'INFO',
      timestamp: (entry.timestamp ?? this.clock.now()).toISOString(),
      // A log line keeps its text; only characters no store accepts become U+FFFD.
      message: toStorableText(withinLogLimit(entry.message)),
    }));
    const records = batches.map(({ job, items }) =>
      encodeQueueMessage(logBatchCodec, {
        ...envelope('log.batch', randomUUID(), job.correlationId, this.clock.now()),
        payload: { tenantId: job.tenantId, executionId: job.executionId, entries: items },
      }),
    );
    if (records.length > 0) await this.queue.publish(QueueTopics.logs, records);
  }

  async metrics(worker: WorkerSession, metrics: readonly Metric[]): Promise<void> {
    const batches = this.groupByExecution(worker, metrics, 'metric', (metric) => {
      const type = METRIC_TYPES[metric.type];
      if (type === undefined || metric.name === '' || !Number.isFinite(metric.value)) return undefined;
      return {
        taskRunId: metric.taskRunId,
        attempt: metric.attempt,
        name: metric.name,
        type,
        value: metric.value,
        tags: { ...metric.tags },
        timestamp: (metric.timestamp ?? this.clock.now()).toISOString(),
      };
    });
    const records = batches.map(({ job, items }) =>
      encodeQueueMessage(metricBatchCodec, {
        ...envelope('metric.batch', randomUUID(), job.correlationId, this.clock.now()),
        payload: { tenantId: job.tenantId, executionId: job.executionId, metrics: items },
      }),
    );
    if (records.length > 0) await this.queue.publish(QueueTopics.metrics, records);
  }

  /**
   * Groups a frame's items by the execution of the job each belongs to, keeping
   * only items of jobs this worker holds that `toMessage` accepts (it returns
   * undefined for a malformed item); every dropped item is logged.
   */
  private groupByExecution<Item extends { taskRunId: string; attempt: number }, Out>(
    worker: WorkerSession,
    items: readonly Item[],
    what: string,
    toMessage: (item: Item) => Out | undefined,
  ): { job: HeldJob; items: Out[] }[] {
    const byExecution = new Map<string, { job: HeldJob; items: Out[] }>();
    for (const item of items) {
      const known = worker.knownJob(item.taskRunId, item.attempt);
      const message = known ? toMessage(item) : undefined;
      if (!known || message === undefined) {
        this.logger.warn(
          { workerId: worker.workerId, taskRunId: item.taskRunId, attempt: item.attempt },
          `${what} of an unknown job or malformed dropped`,
        );
        continue;
      }
      const group = byExecution.get(known.job.executionId) ?? { job: known.job, items: [] };
      group.items.push(message);
      byExecution.set(known.job.executionId, group);
    }
    return [...byExecution.values()];
  }

  private async publishResult(job: HeldJob, workerId: string, outcome: RelayedOutcome): Promise<void> {
    if (job.triggerEvaluation === true) {
      await this.queue.publish(QueueTopics.triggerResults, [
        encodeQueueMessage(triggerResultCodec, {
          ...envelope('job.result', jobMessageId(job.taskRunId, job.attempt), job.correlationId, this.clock.now()),
          payload: resultPayload(job, workerId, outcome),
        }),
      ]);
      return;
    }
    const message = {
      ...envelope('task-run.result', jobMessageId(job.taskRunId, job.attempt), job.correlationId, this.clock.now()),
      payload: resultPayload(job, workerId, outcome),
    };
    await this.queue.publish(QueueTopics.executor, [encodeQueueMessage(executorEventCodec, message)]);
  }
}

interface RelayedOutcome {
  state: JobStateName;
  outputs: Record<string, unknown>;
  errorMessage?: string;
  cacheHit: boolean;
  startedAt?: string;
  endedAt: string;
  deadlinePassed?: boolean;
}

function resultPayload(job: HeldJob, workerId: string, outcome: RelayedOutcome) {
  return {
    tenantId: job.tenantId,
    executionId: job.executionId,
    taskRunId: job.taskRunId,
    attempt: job.attempt,
    workerQueueId: job.workerQueueId,
    workerId,
    state: outcome.state,
    outputs: outcome.outputs,
    cacheHit: outcome.cacheHit,
    endedAt: outcome.endedAt,
    ...(outcome.errorMessage !== undefined ? { errorMessage: outcome.errorMessage } : {}),
    ...(outcome.startedAt !== undefined ? { startedAt: outcome.startedAt } : {}),
    ...(outcome.deadlinePassed === true ? { deadlinePassed: true } : {}),
  };
}
