import { z } from 'zod';
import { isWorkerQueueId } from './topics';

/**
 * The current schema version of every queue message type. Bump a type's
 * version when a change would be misread by a consumer still running the old
 * code (a field removed, renamed, retyped or made required). Adding an
 * optional field needs no bump: older consumers drop fields they do not know.
 * A consumer meeting a version above its own refuses the message with
 * NewerSchemaVersionError, so a half-done rolling upgrade is loud, not lossy.
 */
export const QUEUE_SCHEMA_VERSIONS = {
  'execution.created': 1,
  'task-run.started': 1,
  'task-run.result': 1,
  'task-run.worker-lost': 1,
  'execution.restart': 1,
  'subflow.ended': 1,
  'execution.updated': 1,
  'execution.kill': 1,
  'execution.resume': 1,
  'timer.fired': 1,
  'worker.job': 1,
  'job.result': 1,
  'log.batch': 1,
  'metric.batch': 1,
  'broadcast.kill': 1,
  'broadcast.subscriptions-changed': 1,
  'broadcast.token-revoked': 1,
  'broadcast.maintenance': 1,
  'broadcast.flows-changed': 1,
  'audit.entry': 1,
} as const;

export type QueueMessageType = keyof typeof QUEUE_SCHEMA_VERSIONS;

/** The idempotency key of a job and of its result (ARCHITECTURE.md: task-run id + attempt). */
export function jobMessageId(taskRunId: string, attempt: number): string {
  return `${taskRunId}:${attempt}`;
}

// One log line: FLOWS.md "Limits".
export const MAX_LOG_MESSAGE_BYTES = 64 * 1024;

const id = z.string().min(1);
const attempt = z.int().min(1);
/** UTC instants as ISO-8601 strings, e.g. 2026-11-30T01:02:03.456Z. */
const instant = z.iso.datetime();
const workerQueueId = z.string().refine(isWorkerQueueId, { message: 'Not an RFC 1123 worker queue id' });
/** Arbitrary JSON object (task outputs, inputs, definitions). */
const jsonObject = z.record(z.string(), z.unknown());
const stringMap = z.record(z.string(), z.string());

function envelope<const T extends QueueMessageType, P extends z.ZodType>(type: T, payload: P) {
  return z.object({
    schemaVersion: z.literal(QUEUE_SCHEMA_VERSIONS[type]),
    /** Consumers are idempotent on it: a redelivered message has the same id. */
    messageId: id,
    type: z.literal(type),
    occurredAt: instant,
    /** Carried from the API request through every hop, into logs and gRPC metadata. */
    correlationId: id.optional(),
    payload,
  });
}

/** Jobs and results must be keyed by task-run id + attempt, or deduplication breaks. */
function requireJobMessageId(
  message: { messageId: string; payload: { taskRunId: string; attempt: number } },
  ctx: z.RefinementCtx,
) {
  const expected = jobMessageId(message.payload.taskRunId, message.payload.attempt);
  if (message.messageId !== expected) {
    ctx.addIssue({ code: 'custom', path: ['messageId'], message: `Must be '${expected}' (task-run id:attempt)` });
  }
}

// --- payloads --------------------------------------------------------------

export const JobStateSchema = z.enum(['SUCCESS', 'WARNING', 'FAILED', 'KILLED']);
export const LogLevelSchema = z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']);
export const SubscriptionModeSchema = z.enum(['STRICT', 'ELASTIC']);

/** The outcome of one job, as the controller recorded it from the worker. */
const jobResultPayload = z.object({
  tenantId: id,
  executionId: id,
  taskRunId: id,
  attempt,
  workerQueueId,
  workerId: id,
  state: JobStateSchema,
  outputs: jsonObject,
  /** For users; never a stack trace or a secret. */
  errorMessage: z.string().optional(),
  cacheHit: z.boolean(),
  startedAt: instant.optional(),
  endedAt: instant,
  /**
   * True when no worker started the job because its deadline had passed first
   * (state FAILED): the executor ends the attempt as its own timeout does.
   */
  deadlinePassed: z.boolean().optional(),
});

const subscription = z.object({
  workerQueueId,
  reservedPercent: z.int().min(1).max(100).optional(),
  mode: SubscriptionModeSchema,
});

// --- carried executions (execution.created, execution.updated) ------------

/** An instant as a Date in code and an ISO-8601 string on the wire. */
const date = z.codec(instant, z.date(), {
  decode: (iso) => new Date(iso),
  encode: (value) => value.toISOString(),
});
const recordedChange = z.object({ state: z.string().min(1), date });

/**
 * An `execution.updated` record carrying the ended execution, or an `execution.created` record
 * carrying the new row, is at most this many bytes; a larger one goes without it (see
 * `encodeExecutionUpdate`, `encodeExecutionCreated`). An executor batch of 200 ended executions
 * then stays within one produce request of the topic (5 MiB), and an execution of a few dozen
 * task runs fits.
 */
export const MAX_CARRIED_EXECUTION_BYTES = 16 * 1024;

/**
 * An execution as the repository reads it (`ExecutionWithTaskRuns` of @lanner/model): the row's
 * fields, its task runs in the repository's order, each with its attempts.
 */
export const CarriedExecutionSchema = z.object({
  id,
  tenantId: id,
  namespace: id,
  flowId: id,
  flowRevision: z.int(),
  state: z.string().min(1),
  stateHistories: z.array(recordedChange),
  inputs: z.json(),
  outputs: z.json(),
  labels: stringMap,
  trigger: z.json(),
  version: z.int().min(0),
  parentExecutionId: z.string().nullable(),
  parentTaskRunId: z.string().nullable(),
  createdAt: date,
  updatedAt: date,
  startedAt: date.nullable(),
  endedAt: date.nullable(),
  error: z.string().nullable().optional(),
  taskRuns: z.array(
    z.object({
      id,
      executionId: id,
      taskId: id,
      parentTaskRunId: z.string().nullable(),
      value: z.string().nullable(),
      state: z.string().min(1),
      stateHistories: z.array(recordedChange),
      outputs: z.json(),
      workerQueueId: z.string().nullable(),
      workerSelector: z.json(),
      dispatchReason: z.string().nullable(),
      error: z.string().nullable(),
      attempts: z.array(
        z.object({
          attempt,
          workerId: z.string().nullable(),
          workerQueueId: z.string().nullable(),
          state: z.string().min(1),
          outputs: z.json(),
          error: z.json(),
          startedAt: date.nullable(),
          endedAt: date.nullable(),
        }),
      ),
    }),
  ),
});

// --- lanner.executor (key: execution id) -----------------------------------

export const ExecutionCreatedSchema = envelope(
  'execution.created',
  z.object({
    tenantId: id,
    executionId: id,
    namespace: id,
    flowId: id,
    flowRevision: z.int().min(1),
    inputs: jsonObject,
    labels: stringMap,
    /**
     * The row as the api inserted it (no task runs yet), when maintenance mode was off in
     * the insert's snapshot: the executor starts the execution from it without reading it.
     * Left out when the record would be longer than MAX_CARRIED_EXECUTION_BYTES, and by the
     * other producers (the executor's children and flow triggers, the scheduler, the
     * liveness coordinator's announcements after maintenance): their executor reads the row.
     */
    execution: CarriedExecutionSchema.optional(),
  }),
);

/** A worker started the job (relayed by its controller from JobStarted). */
export const TaskRunStartedSchema = envelope(
  'task-run.started',
  z.object({
    tenantId: id,
    executionId: id,
    taskRunId: id,
    attempt,
    workerQueueId,
    workerId: id,
    startedAt: instant,
  }),
).superRefine(requireJobMessageId);

export const TaskRunResultSchema = envelope('task-run.result', jobResultPayload).superRefine(requireJobMessageId);

/** The worker running the job disconnected or died before sending a result. */
export const TaskRunWorkerLostSchema = envelope(
  'task-run.worker-lost',
  z.object({
    tenantId: id,
    executionId: id,
    taskRunId: id,
    attempt,
    workerId: id,
    /** For the task run's history, e.g. "worker w-1 disconnected". */
    reason: z.string(),
    /** The worker group's restart strategy; NEVER: the task run fails instead of going back to its queue. Absent: re-run. */
    restartStrategy: z.enum(['NEVER', 'IMMEDIATELY', 'AFTER_TERMINATION_GRACE_PERIOD']).optional(),
  }),
).superRefine(requireJobMessageId);

export const ExecutionRestartSchema = envelope(
  'execution.restart',
  z.object({
    tenantId: id,
    executionId: id,
    /** The execution version the requester saw: a late duplicate restart is a no-op. */
    expectedVersion: z.int().min(0).optional(),
    requestedBy: id.optional(),
  }),
);

/** A child execution started by a Subflow task ended (sent to the parent's partition). */
export const SubflowEndedSchema = envelope(
  'subflow.ended',
  z.object({
    tenantId: id,
    /** The parent execution, the one this event is for. */
    executionId: id,
    taskRunId: id,
    childExecutionId: id,
    state: z.string().min(1),
    outputs: jsonObject.optional(),
  }),
);

export const ExecutionKillSchema = envelope(
  'execution.kill',
  z.object({
    tenantId: id,
    executionId: id,
    /** Who asked (user or API-token id), for the execution's history. */
    requestedBy: id.optional(),
  }),
);

export const ExecutionResumeSchema = envelope(
  'execution.resume',
  z.object({
    tenantId: id,
    executionId: id,
    /** Inputs given on resume (a Pause task's onResume inputs). */
    inputs: jsonObject.optional(),
  }),
);

export const TimerFiredSchema = envelope(
  'timer.fired',
  z.object({
    tenantId: id,
    executionId: id,
    timerId: id,
    /** What the timer was set for; decides the state machine's event. */
    reason: z.enum(['RETRY', 'PAUSE', 'TIMEOUT', 'WAIT_FOR']),
    /** The task run the timer belongs to; absent for execution-wide timers. */
    taskRunId: id.optional(),
    dueAt: instant,
  }),
);

export const ExecutorEventSchema = z.discriminatedUnion('type', [
  ExecutionCreatedSchema,
  TaskRunStartedSchema,
  TaskRunResultSchema,
  TaskRunWorkerLostSchema,
  ExecutionKillSchema,
  ExecutionResumeSchema,
  ExecutionRestartSchema,
  SubflowEndedSchema,
  TimerFiredSchema,
]);

// --- lanner.worker-jobs.<queueId> (key: task-run id) ------------------------

export const WorkerJobSchema = envelope(
  'worker.job',
  z.object({
    tenantId: id,
    executionId: id,
    taskRunId: id,
    attempt,
    /** Kept when a job is re-queued, so it goes back to the same queue. */
    workerQueueId,
    namespace: id,
    flowId: id,
    taskId: id,
    taskType: id,
    /** The task with its templates rendered, except `secret()` calls (resolved on the worker). */
    taskDefinition: jsonObject,
    /** How long the attempt may run on a worker; absent means no limit. */
    timeoutMs: z.int().min(1).optional(),
    /** After this instant the job is not worth starting; absent means none. */
    deadline: instant.optional(),
    /**
     * The job evaluates a trigger (a polling trigger's poll) for the scheduler,
     * not a task run of an execution: its result goes to `lanner.trigger-results`.
     */
    triggerEvaluation: z.boolean().optional(),
  }),
).superRefine(requireJobMessageId);

// --- lanner.results (key: execution id) -------------------------------------

export const JobResultSchema = envelope('job.result', jobResultPayload).superRefine(requireJobMessageId);

// --- lanner.execution-updates (key: execution id) --------------------------

/**
 * The executor changed an execution (published after it is stored). The API
 * follows these for SSE and `?wait=true`; the repository holds the full state.
 */
export const ExecutionUpdatedSchema = envelope(
  'execution.updated',
  z.object({
    tenantId: id,
    executionId: id,
    namespace: id,
    flowId: id,
    state: z.string().min(1),
    /** The stored version after the change; readers ignore updates older than what they saw. */
    version: z.int().min(0),
    /** true once the execution reached a terminal state. */
    ended: z.boolean(),
    /**
     * When it ended: the execution exactly as the repository reads it right after this
     * change, so a reader waiting for the end need not read it. Left out when the record
     * would be longer than MAX_CARRIED_EXECUTION_BYTES (or the executor did not have it).
     */
    execution: CarriedExecutionSchema.optional(),
  }),
);

// --- lanner.logs / lanner.metrics (key: execution id) -----------------------

export const LogBatchSchema = envelope(
  'log.batch',
  z.object({
    tenantId: id,
    executionId: id,
    entries: z
      .array(
        z.object({
          taskRunId: id,
          attempt,
          level: LogLevelSchema,
          timestamp: instant,
          message: z.string().refine((line) => Buffer.byteLength(line, 'utf8') <= MAX_LOG_MESSAGE_BYTES, {
            message: `Longer than ${MAX_LOG_MESSAGE_BYTES / 1024} KiB`,
          }),
        }),
      )
      .min(1),
  }),
);

export const MetricBatchSchema = envelope(
  'metric.batch',
  z.object({
    tenantId: id,
    executionId: id,
    metrics: z
      .array(
        z.object({
          taskRunId: id,
          attempt,
          name: id,
          type: z.enum(['COUNTER', 'TIMER']),
          /** A counter's increment, or a timer's span in milliseconds. */
          value: z.number(),
          tags: stringMap,
          timestamp: instant,
        }),
      )
      .min(1),
  }),
);

// --- lanner.audit (key: tenant id, `instance` for instance routes) -----------

/** Who acted: a verified API token or user, or nobody (a webhook, whose key is its secret). */
export const AuditActorTypeSchema = z.enum(['api-token', 'user', 'anonymous']);
/** success: the change was made; failure: the handler refused or failed it; denied: the access guard refused it. */
export const AuditOutcomeSchema = z.enum(['success', 'failure', 'denied']);

/**
 * One write through the API. It names things by id only: never a request body,
 * a token value or a webhook key. `messageId` is the entry's id (the indexer
 * stores each id once).
 */
export const AuditEntrySchema = envelope(
  'audit.entry',
  z.object({
    /** Null on instance routes (topology, users, tenants, dead letters). */
    tenantId: id.nullable(),
    /** `flow.update`, `execution.kill`, ...: `<resource type>.<verb>`. */
    action: id,
    resourceType: id,
    /** Null when the request failed before the resource had an id (a refused create). */
    resourceId: z.string().nullable(),
    namespace: z.string().nullable(),
    actor: z.object({
      type: AuditActorTypeSchema,
      /** The API token's id or the user's id; null for anonymous callers. */
      id: z.string().nullable(),
      /** The API token's name or the username. */
      name: z.string().nullable(),
    }),
    clientIp: z.string().nullable(),
    userAgent: z.string().nullable(),
    outcome: AuditOutcomeSchema,
    /** The HTTP status answered. */
    status: z.int().min(100).max(599),
  }),
).superRefine((message, ctx) => {
  // The entry's id in the audit log.
  if (!z.uuid().safeParse(message.messageId).success)
    ctx.addIssue({ code: 'custom', path: ['messageId'], message: 'Must be a UUID (the audit entry id)' });
});

// --- lanner.broadcast (read by every controller) ----------------------------

export const BroadcastKillSchema = envelope(
  'broadcast.kill',
  z.object({
    tenantId: id,
    executionId: id,
    taskRunId: id,
    attempt,
    /** For the job's log, e.g. "execution killed by alice". */
    reason: z.string(),
  }),
);

export const SubscriptionsChangedSchema = envelope(
  'broadcast.subscriptions-changed',
  z.object({
    workerGroupId: id,
    /** The group's full subscription list; it replaces the previous one. */
    subscriptions: z.array(subscription).refine((list) => list.reduce((sum, s) => sum + (s.reservedPercent ?? 0), 0) <= 100, {
      message: 'Reserved percentages add up to more than 100',
    }),
  }),
);

export const TokenRevokedSchema = envelope(
  'broadcast.token-revoked',
  z.object({
    workerGroupId: id,
    /** The id of the revoked registration token (never its value). */
    registrationTokenId: id,
  }),
);

export const MaintenanceSchema = envelope(
  'broadcast.maintenance',
  z.object({
    /** true: pause every queue subscriber and let in-flight work drain; false: resume. */
    enabled: z.boolean(),
  }),
);

export const FlowsChangedSchema = envelope(
  'broadcast.flows-changed',
  z.object({
    tenantId: id,
    namespace: id,
    flowId: id,
    /** The flow's revision the change stored (a deletion stores one too). */
    revision: z.int().min(1),
  }),
);

export const BroadcastMessageSchema = z.discriminatedUnion('type', [
  BroadcastKillSchema,
  SubscriptionsChangedSchema,
  TokenRevokedSchema,
  MaintenanceSchema,
  FlowsChangedSchema,
]);

export type ExecutorEvent = z.infer<typeof ExecutorEventSchema>;
export type WorkerJobMessage = z.infer<typeof WorkerJobSchema>;
export type ExecutionUpdatedMessage = z.infer<typeof ExecutionUpdatedSchema>;
export type CarriedExecution = z.infer<typeof CarriedExecutionSchema>;
export type JobResultMessage = z.infer<typeof JobResultSchema>;
export type JobResultPayload = z.infer<typeof jobResultPayload>;
export type LogBatchMessage = z.infer<typeof LogBatchSchema>;
export type MetricBatchMessage = z.infer<typeof MetricBatchSchema>;
export type BroadcastMessage = z.infer<typeof BroadcastMessageSchema>;
export type AuditEntryMessage = z.infer<typeof AuditEntrySchema>;
export type AuditActorType = z.infer<typeof AuditActorTypeSchema>;
export type AuditOutcome = z.infer<typeof AuditOutcomeSchema>;
