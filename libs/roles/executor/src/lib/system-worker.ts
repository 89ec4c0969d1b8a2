import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { Logger } from '@nestjs/common';
import {
  broadcastCodec,
  decodeQueueMessage,
  encodeQueueMessage,
  executorEventCodec,
  InvalidQueueMessageError,
  jobMessageId,
  logBatchCodec,
  QUEUE_SCHEMA_VERSIONS,
  triggerResultCodec,
  workerJobCodec,
  type EncodedQueueMessage,
  type LogBatchMessage,
  type WorkerJobMessage,
} from '@lanner/frames';
import { toStorableText } from '@lanner/model';
import { capLogLine, createTaskRunner, type TaskOutcome, type TaskRunner } from '@lanner/plugins';
import type { QueueMessage, QueuePort, QueueSubscription, SubscribeOptions } from '@lanner/queue';
import { taskRunFiles, type InternalStorage } from '@lanner/storage';
import { systemTaskOf, systemWorkerRegistry } from './system-worker-tasks';

/** The worker id the system worker's results carry (the executor process stands in for a worker). */
export const SYSTEM_WORKER_ID = 'system-worker';

/** How many handled job ids the worker remembers, so a job delivered again is not run again. */
const REMEMBERED_JOBS = 10_000;
/** Log lines per `log.batch` message. */
const LOG_LINES_PER_BATCH = 500;

export interface SystemWorkerTopics {
  /** `lanner.worker-jobs.system` and `lanner.resubmitted-jobs.system`. */
  readonly jobs: readonly string[];
  readonly executor: string;
  readonly logs: string;
  readonly triggerResults: string;
  /** Where kills of running jobs come from (`broadcast.kill`). */
  readonly broadcast: string;
}

/** The Kafka adapter's option (the in-process one has no commit requests to save). */
type FollowOptions = SubscribeOptions & { commitOffsets: false };

export interface SystemWorkerOptions {
  readonly topics: SystemWorkerTopics;
  /** Every executor's system worker shares it: each job is taken by one of them. */
  readonly groupId: string;
  /** Internal storage for the tasks' files; without it a task that reads or writes one fails saying so. */
  readonly storage?: InternalStorage;
  readonly clock?: () => Date;
}

type LogEntry = LogBatchMessage['payload']['entries'][number];

/**
 * The in-process worker of the reserved `system` queue (WORKERS.md): it lives in
 * every executor (and so in standalone), needs no deployment and no controller,
 * and runs the platform's own tasks. It reads the queue's job topics in one
 * consumer group shared by the executors, runs each job with the worker's task
 * implementations (only the kinds of `SYSTEM_WORKER_KINDS`), and answers as a
 * controller relays a worker: `task-run.started`, the task's log lines on
 * `lanner.logs`, then `task-run.result` on `lanner.executor`, each with the
 * job's id (task run + attempt), so the executor and the indexer are idempotent
 * on them. A job delivered again to this process is not run again.
 */
export class SystemWorker {
  private readonly logger = new Logger(SystemWorker.name);
  private readonly runner: TaskRunner = createTaskRunner({ registry: systemWorkerRegistry() });
  private readonly handled = new Set<string>();
  private readonly running = new Map<string, AbortController>();
  private subscription: QueueSubscription | undefined;
  private kills: QueueSubscription | undefined;
  private ignored = 0;
  private readonly clock: () => Date;

  constructor(
    private readonly queue: QueuePort,
    private readonly options: SystemWorkerOptions,
  ) {
    this.clock = options.clock ?? (() => new Date());
  }

  async start(): Promise<void> {
    // Every executor hears every kill (a group of its own, from the end, never committed), as every controller does.
    const follow: FollowOptions = {
      groupId: `${this.options.groupId}.kills.${randomBytes(6).toString('hex')}`,
      commitOffsets: false,
      topics: [this.options.topics.broadcast],
      fromBeginning: false,
      handler: async (message) => this.killed(message),
    };
    this.kills ??= await this.queue.subscribe(follow);
    this.subscription ??= await this.queue.subscribe({
      groupId: this.options.groupId,
      topics: [...this.options.topics.jobs],
      // A job produced before the first executor joined still runs.
      fromBeginning: true,
      handler: (message) => this.handle(message),
    });
    this.logger.log({ topics: this.options.topics.jobs, groupId: this.options.groupId }, 'system worker consuming');
  }

  /** Stops taking jobs; the running ones are stopped (KILLED) and answered. */
  async stop(): Promise<void> {
    for (const abort of this.running.values()) abort.abort(new Error('the executor stopped before the task ended'));
    await this.subscription?.close();
    await this.kills?.close();
    this.subscription = undefined;
    this.kills = undefined;
  }

  /** `broadcast.kill` of a job this process runs: the task is stopped and answered KILLED. */
  private async killed(message: QueueMessage): Promise<void> {
    if (this.running.size === 0) return;
    let broadcast;
    try {
      broadcast = decodeQueueMessage(broadcastCodec, message.value);
    } catch {
      return; // A broadcast this process cannot read is no kill of its jobs.
    }
    if (broadcast.type !== 'broadcast.kill') return;
    const { taskRunId, attempt, reason } = broadcast.payload;
    this.running.get(jobMessageId(taskRunId, attempt))?.abort(new Error(reason === '' ? 'killed' : reason));
  }

  /** How many jobs this process ran and still remembers (each job id once; the last 10 000). */
  get jobsRun(): number {
    return this.handled.size;
  }

  /** How many jobs run now. */
  get jobsRunning(): number {
    return this.running.size;
  }

  /** How many deliveries of a job this process had already run (or was running) it left alone. */
  get redeliveriesIgnored(): number {
    return this.ignored;
  }

  private async handle(message: QueueMessage): Promise<void> {
    let job: WorkerJobMessage;
    try {
      job = decodeQueueMessage(workerJobCodec, message.value);
    } catch (error) {
      if (error instanceof InvalidQueueMessageError) {
        // The problems name paths and rules, never values: safe to log.
        this.logger.error(
          { topic: message.topic, offset: message.offset, reason: error.message },
          'unreadable system job skipped',
        );
        return;
      }
      throw error;
    }
    const id = jobMessageId(job.payload.taskRunId, job.payload.attempt);
    if (this.handled.has(id) || this.running.has(id)) {
      this.ignored += 1;
      return;
    }
    const abort = new AbortController();
    this.running.set(id, abort);
    try {
      await this.run(job, abort.signal);
      this.remember(id);
    } finally {
      this.running.delete(id);
    }
  }

  private remember(id: string): void {
    this.handled.add(id);
    if (this.handled.size > REMEMBERED_JOBS) {
      const oldest = this.handled.values().next().value;
      if (oldest !== undefined) this.handled.delete(oldest);
    }
  }

  private async run(job: WorkerJobMessage, signal: AbortSignal): Promise<void> {
    const { payload } = job;
    const startedAt = this.clock();
    if (payload.triggerEvaluation === true) {
      await this.answer(job, [], failed('the system worker evaluates no trigger: give the trigger a worker'), startedAt);
      return;
    }
    if (payload.deadline !== undefined && Date.parse(payload.deadline) <= startedAt.getTime()) {
      await this.answer(job, [], failed('the job reached its deadline before a worker could start it'), startedAt, true);
      return;
    }
    const read = systemTaskOf(payload);
    if (!read.ok) {
      await this.answer(job, [], failed(read.reason), startedAt);
      return;
    }
    await this.publish(this.options.topics.executor, [this.startedMessage(job, startedAt)]);
    const lines: LogEntry[] = [];
    const outcome = await this.runner.run(read.task, {
      signal,
      workingDirectory: tmpdir(),
      now: this.clock,
      ...(this.options.storage
        ? {
            files: taskRunFiles(this.options.storage, payload.tenantId, {
              namespace: payload.namespace,
              flowId: payload.flowId,
              executionId: payload.executionId,
              taskId: payload.taskId,
              taskRunId: payload.taskRunId,
            }),
          }
        : {}),
      log: (level, text) =>
        lines.push({
          taskRunId: payload.taskRunId,
          attempt: payload.attempt,
          level,
          timestamp: this.clock().toISOString(),
          message: toStorableText(capLogLine(text)),
        }),
    });
    await this.answer(job, lines, outcome, startedAt);
  }

  /** The log lines first, so a reader that sees the result has the task's whole log; then the result. */
  private async answer(
    job: WorkerJobMessage,
    lines: readonly LogEntry[],
    outcome: TaskOutcome,
    startedAt: Date,
    deadlinePassed = false,
  ): Promise<void> {
    const { payload } = job;
    const id = jobMessageId(payload.taskRunId, payload.attempt);
    const batches: EncodedQueueMessage[] = [];
    for (let from = 0; from < lines.length; from += LOG_LINES_PER_BATCH) {
      batches.push(
        encodeQueueMessage(logBatchCodec, {
          ...this.envelope('log.batch', `${id}:log:${from / LOG_LINES_PER_BATCH}`, job.correlationId),
          payload: {
            tenantId: payload.tenantId,
            executionId: payload.executionId,
            entries: lines.slice(from, from + LOG_LINES_PER_BATCH),
          },
        }),
      );
    }
    if (batches.length > 0) await this.publish(this.options.topics.logs, batches);
    const result = {
      tenantId: payload.tenantId,
      executionId: payload.executionId,
      taskRunId: payload.taskRunId,
      attempt: payload.attempt,
      workerQueueId: payload.workerQueueId,
      workerId: SYSTEM_WORKER_ID,
      state: outcome.state,
      outputs: outcome.outputs,
      cacheHit: false,
      startedAt: startedAt.toISOString(),
      endedAt: this.clock().toISOString(),
      ...(outcome.error !== undefined && outcome.error !== '' ? { errorMessage: toStorableText(outcome.error) } : {}),
      ...(deadlinePassed ? { deadlinePassed: true } : {}),
    };
    if (payload.triggerEvaluation === true) {
      await this.publish(this.options.topics.triggerResults, [
        encodeQueueMessage(triggerResultCodec, { ...this.envelope('job.result', id, job.correlationId), payload: result }),
      ]);
      return;
    }
    await this.publish(this.options.topics.executor, [
      encodeQueueMessage(executorEventCodec, { ...this.envelope('task-run.result', id, job.correlationId), payload: result }),
    ]);
    this.logger.log({ executionId: payload.executionId, taskRunId: payload.taskRunId, state: outcome.state }, 'system job ended');
  }

  private startedMessage(job: WorkerJobMessage, startedAt: Date): EncodedQueueMessage {
    const { payload } = job;
    return encodeQueueMessage(executorEventCodec, {
      ...this.envelope('task-run.started', jobMessageId(payload.taskRunId, payload.attempt), job.correlationId),
      payload: {
        tenantId: payload.tenantId,
        executionId: payload.executionId,
        taskRunId: payload.taskRunId,
        attempt: payload.attempt,
        workerQueueId: payload.workerQueueId,
        workerId: SYSTEM_WORKER_ID,
        startedAt: startedAt.toISOString(),
      },
    });
  }

  private envelope<T extends keyof typeof QUEUE_SCHEMA_VERSIONS>(type: T, messageId: string, correlationId: string | undefined) {
    return {
      schemaVersion: QUEUE_SCHEMA_VERSIONS[type],
      messageId,
      type,
      occurredAt: this.clock().toISOString(),
      ...(correlationId !== undefined ? { correlationId } : {}),
    };
  }

  private async publish(topic: string, records: EncodedQueueMessage[]): Promise<void> {
    await this.queue.publish(topic, records);
  }
}

function failed(error: string): TaskOutcome {
  return { state: 'FAILED', outputs: {}, error, cacheHit: false };
}
