import {
  encodeQueueMessage,
  jobMessageId,
  MAX_FRAME_BYTES,
  QUEUE_SCHEMA_VERSIONS,
  workerJobCodec,
  type EncodedQueueMessage,
  type WorkerJobMessage,
} from '@lanner/frames';
import { type RandomSource, renderValue } from '@lanner/expressions';
import { describeUnstorableText, findUnstorableText, type RunnableTask } from '@lanner/model';
import type { Execution } from '@lanner/state-machine';

/**
 * Properties that steer the task rather than feed it: passed to the worker as
 * written (the runner reads `timeoutMs`; `runIf`, `retry` and the selector were
 * used by the executor already). Everything else is rendered late, here.
 */
const NOT_RENDERED = new Set([
  'id',
  'type',
  'kind',
  'description',
  'disabled',
  'runIf',
  'allowFailure',
  'allowWarning',
  'timeoutMs',
  'retry',
  'workerSelector',
  'taskCache',
]);

/**
 * Renders a runnable task for a worker: every template against the execution
 * context, except `secret()` segments, which stay as written for the worker to
 * resolve from its own environment. Throws ExpressionError for a template that
 * cannot be rendered, and UnstorableJob for a rendering Lanner could not store
 * (the running-job store and the task run keep the job as it was sent).
 */
export function renderTaskForWorker(
  task: RunnableTask,
  context: Record<string, unknown>,
  now: Date,
  random?: RandomSource,
): Record<string, unknown> {
  const rendered: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(task)) {
    rendered[name] = NOT_RENDERED.has(name)
      ? value
      : renderValue(value, context, random !== undefined ? { now, random } : { now });
  }
  const unstorable = findUnstorableText(rendered);
  if (unstorable !== undefined) throw new UnstorableJob(task.id, describeUnstorableText(unstorable, 'property'));
  return rendered;
}

/** A rendered property holds text no database write would accept: the task run fails with this message. */
export class UnstorableJob extends Error {
  constructor(
    readonly taskId: string,
    problem: string,
  ) {
    super(`task '${taskId}' cannot be sent to a worker: once rendered, its ${problem}, which Lanner cannot store`);
    this.name = 'UnstorableJob';
  }
}

/** The job would not fit in one gRPC frame: the task run fails with this message. */
export class JobTooLarge extends Error {
  constructor(
    readonly taskId: string,
    readonly bytes: number,
  ) {
    super(
      `the job for task '${taskId}' is ${bytes} bytes once rendered, over the ${MAX_FRAME_BYTES / (1024 * 1024)} MiB limit of a job; ` +
        'pass large data through files or outputs of earlier tasks instead of inline properties',
    );
    this.name = 'JobTooLarge';
  }
}

export interface WorkerJobInput {
  readonly execution: Execution;
  readonly taskRunId: string;
  readonly attempt: number;
  readonly task: RunnableTask;
  readonly workerQueueId: string;
  readonly taskDefinition: Record<string, unknown>;
  readonly now: number;
  /** Epoch ms after which no worker should start the job (its timeout already failed the task run). */
  readonly deadline?: number;
  readonly correlationId?: string;
}

/** The validated, encoded `worker.job` message; JobTooLarge when it exceeds a frame. */
export function encodeWorkerJob(input: WorkerJobInput): EncodedQueueMessage {
  const message: WorkerJobMessage = {
    schemaVersion: QUEUE_SCHEMA_VERSIONS['worker.job'],
    messageId: jobMessageId(input.taskRunId, input.attempt),
    type: 'worker.job',
    occurredAt: new Date(input.now).toISOString(),
    ...(input.correlationId !== undefined ? { correlationId: input.correlationId } : {}),
    payload: {
      tenantId: input.execution.tenant,
      executionId: input.execution.id,
      taskRunId: input.taskRunId,
      attempt: input.attempt,
      workerQueueId: input.workerQueueId,
      namespace: input.execution.namespace,
      flowId: input.execution.flowId,
      taskId: input.task.id,
      taskType: input.task.type,
      taskDefinition: input.taskDefinition,
      ...(input.task.timeoutMs !== undefined ? { timeoutMs: input.task.timeoutMs } : {}),
      ...(input.deadline !== undefined ? { deadline: new Date(input.deadline).toISOString() } : {}),
    },
  };
  const encoded = encodeQueueMessage(workerJobCodec, message);
  if (encoded.value.length > MAX_FRAME_BYTES) throw new JobTooLarge(input.task.id, encoded.value.length);
  return encoded;
}
