import { z } from 'zod';
import {
  AuditEntrySchema,
  BroadcastMessageSchema,
  ExecutionUpdatedSchema,
  ExecutorEventSchema,
  JobResultSchema,
  LogBatchSchema,
  MAX_CARRIED_EXECUTION_BYTES,
  MetricBatchSchema,
  QUEUE_SCHEMA_VERSIONS,
  WorkerJobSchema,
  type AuditEntryMessage,
  type BroadcastMessage,
  type ExecutionUpdatedMessage,
  type ExecutorEvent,
  type JobResultMessage,
  type LogBatchMessage,
  type MetricBatchMessage,
  type QueueMessageType,
  type WorkerJobMessage,
} from './schemas';
import { QueueTopics, WORKER_JOBS_TOPIC_PREFIX } from './topics';

/** The fields every queue message carries around its payload. */
export interface QueueEnvelope {
  schemaVersion: number;
  messageId: string;
  type: QueueMessageType;
  occurredAt: string;
  correlationId?: string;
}

/** How the messages of one topic (or topic family) are validated and keyed. */
export interface QueueMessageCodec<M extends QueueEnvelope> {
  /** Named in errors; `lanner.worker-jobs.*` for the per-queue job topics. */
  readonly topic: string;
  readonly types: readonly M['type'][];
  readonly schema: z.ZodType<M>;
  /** The partitioning key (ARCHITECTURE.md "Message flow"). */
  key(message: M): string;
}

export const executorEventCodec: QueueMessageCodec<ExecutorEvent> = {
  topic: QueueTopics.executor,
  types: [
    'execution.created',
    'task-run.started',
    'task-run.result',
    'task-run.worker-lost',
    'execution.kill',
    'execution.resume',
    'execution.restart',
    'subflow.ended',
    'timer.fired',
  ],
  schema: ExecutorEventSchema,
  key: (message) => message.payload.executionId,
};

export const workerJobCodec: QueueMessageCodec<WorkerJobMessage> = {
  topic: `${WORKER_JOBS_TOPIC_PREFIX}*`,
  types: ['worker.job'],
  schema: WorkerJobSchema,
  key: (message) => message.payload.taskRunId,
};

export const executionUpdateCodec: QueueMessageCodec<ExecutionUpdatedMessage> = {
  topic: QueueTopics.executionUpdates,
  types: ['execution.updated'],
  schema: ExecutionUpdatedSchema,
  key: (message) => message.payload.executionId,
};

export const jobResultCodec: QueueMessageCodec<JobResultMessage> = {
  topic: QueueTopics.results,
  types: ['job.result'],
  schema: JobResultSchema,
  key: (message) => message.payload.executionId,
};

/** The outcome of a trigger evaluation a worker ran, as a controller relays it to the schedulers. */
export const triggerResultCodec: QueueMessageCodec<JobResultMessage> = {
  ...jobResultCodec,
  topic: QueueTopics.triggerResults,
};

export const logBatchCodec: QueueMessageCodec<LogBatchMessage> = {
  topic: QueueTopics.logs,
  types: ['log.batch'],
  schema: LogBatchSchema,
  key: (message) => message.payload.executionId,
};

export const metricBatchCodec: QueueMessageCodec<MetricBatchMessage> = {
  topic: QueueTopics.metrics,
  types: ['metric.batch'],
  schema: MetricBatchSchema,
  key: (message) => message.payload.executionId,
};

export const broadcastCodec: QueueMessageCodec<BroadcastMessage> = {
  topic: QueueTopics.broadcast,
  types: [
    'broadcast.kill',
    'broadcast.subscriptions-changed',
    'broadcast.token-revoked',
    'broadcast.maintenance',
    'broadcast.flows-changed',
  ],
  schema: BroadcastMessageSchema,
  key: (message) => {
    switch (message.type) {
      case 'broadcast.kill':
        return message.payload.executionId;
      case 'broadcast.subscriptions-changed':
      case 'broadcast.token-revoked':
        return message.payload.workerGroupId;
      case 'broadcast.maintenance':
        return 'maintenance';
      case 'broadcast.flows-changed':
        return message.payload.tenantId;
    }
  },
};

/** The key of an instance route's audit entries (they have no tenant). */
export const INSTANCE_AUDIT_KEY = 'instance';

export const auditEntryCodec: QueueMessageCodec<AuditEntryMessage> = {
  topic: QueueTopics.audit,
  types: ['audit.entry'],
  schema: AuditEntrySchema,
  key: (message) => message.payload.tenantId ?? INSTANCE_AUDIT_KEY,
};

export interface QueueMessageProblem {
  /** Where in the message, e.g. `payload.entries[0].level`; `(message)` for the whole of it. */
  path: string;
  message: string;
}

/** A queue message was refused. Messages name paths and rules, never payload values. */
export abstract class QueueMessageError extends Error {
  protected constructor(
    readonly topic: string,
    message: string,
  ) {
    super(message);
  }
}

/** The message is not what its topic's schema says: a producer bug or a corrupt record. */
export class InvalidQueueMessageError extends QueueMessageError {
  constructor(
    topic: string,
    readonly problems: readonly QueueMessageProblem[],
  ) {
    super(topic, `invalid message on ${topic}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    this.name = 'InvalidQueueMessageError';
  }
}

/**
 * The message was written by a newer Lanner (mid rolling upgrade). Consumers
 * should not drop it: leave it uncommitted until this process is upgraded.
 */
export class NewerSchemaVersionError extends QueueMessageError {
  constructor(
    topic: string,
    readonly messageType: string,
    readonly schemaVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      topic,
      `message '${messageType}' on ${topic} has schema version ${schemaVersion}, but this process reads up to version ${supportedVersion}; ` +
        'it was written by a newer Lanner: upgrade this process',
    );
    this.name = 'NewerSchemaVersionError';
  }
}

/** What a producer hands to the queue port (structurally a QueueRecord of @lanner/queue). */
export interface EncodedQueueMessage {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

export const QUEUE_HEADERS = {
  type: 'lanner-type',
  schemaVersion: 'lanner-schema-version',
  correlationId: 'lanner-correlation-id',
} as const;

/** Validates (a producer bug fails here, not in every consumer) and serialises to JSON (Dates as ISO strings). */
export function encodeQueueMessage<M extends QueueEnvelope>(codec: QueueMessageCodec<M>, message: M): EncodedQueueMessage {
  const parsed = z.safeEncode(codec.schema, message);
  if (!parsed.success) throw new InvalidQueueMessageError(codec.topic, describeIssues(parsed.error.issues, message));
  // The message as it goes on the wire; its envelope fields and key are the message's own.
  const wire = parsed.data;
  const headers: Record<string, string> = {
    [QUEUE_HEADERS.type]: message.type,
    [QUEUE_HEADERS.schemaVersion]: String(message.schemaVersion),
  };
  if (message.correlationId !== undefined) headers[QUEUE_HEADERS.correlationId] = message.correlationId;
  return { key: codec.key(message), value: Buffer.from(JSON.stringify(wire), 'utf8'), headers };
}

/**
 * An `execution.updated` record: with the ended execution it carries while the record is at
 * most MAX_CARRIED_EXECUTION_BYTES, else without it (its reader then reads the repository).
 */
export function encodeExecutionUpdate(message: ExecutionUpdatedMessage): EncodedQueueMessage {
  return encodeCarryingWithinBound(executionUpdateCodec, message);
}

/**
 * An executor event; an `execution.created` with the new row it carries while the record is at
 * most MAX_CARRIED_EXECUTION_BYTES, else without it (the executor then reads the row).
 */
export function encodeExecutorEvent(message: ExecutorEvent): EncodedQueueMessage {
  return message.type === 'execution.created'
    ? encodeCarryingWithinBound(executorEventCodec, message)
    : encodeQueueMessage(executorEventCodec, message);
}

function encodeCarryingWithinBound<M extends QueueEnvelope & { payload: { execution?: unknown } }>(
  codec: QueueMessageCodec<M> | QueueMessageCodec<ExecutorEvent>,
  message: M,
): EncodedQueueMessage {
  const encode = codec as QueueMessageCodec<M>;
  const record = encodeQueueMessage(encode, message);
  if (message.payload.execution === undefined || record.value.length <= MAX_CARRIED_EXECUTION_BYTES) return record;
  const { execution: _left, ...payload } = message.payload;
  return encodeQueueMessage(encode, { ...message, payload });
}

/**
 * Parses and validates a record value. Throws NewerSchemaVersionError for a
 * message from a newer producer, InvalidQueueMessageError for anything else
 * that does not match, listing every problem with its path.
 */
export function decodeQueueMessage<M extends QueueEnvelope>(codec: QueueMessageCodec<M>, value: Buffer | string): M {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch {
    throw new InvalidQueueMessageError(codec.topic, [{ path: '(message)', message: 'Not valid JSON' }]);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidQueueMessageError(codec.topic, [{ path: '(message)', message: 'Expected a JSON object' }]);
  }
  rejectNewerVersions(codec, raw as Record<string, unknown>);

  const parsed = codec.schema.safeParse(raw);
  if (!parsed.success) throw new InvalidQueueMessageError(codec.topic, describeIssues(parsed.error.issues, raw));
  return parsed.data;
}

// Checked before the schema so that a newer message is reported as such, not
// as a list of shape errors its new shape would cause.
function rejectNewerVersions<M extends QueueEnvelope>(codec: QueueMessageCodec<M>, raw: Record<string, unknown>): void {
  const { type, schemaVersion } = raw;
  if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion)) return;
  const known = codec.types.find((candidate) => candidate === type);
  if (known !== undefined) {
    const supported = QUEUE_SCHEMA_VERSIONS[known];
    if (schemaVersion > supported) throw new NewerSchemaVersionError(codec.topic, known, schemaVersion, supported);
    return;
  }
  // An unknown type with a version beyond anything this topic knows is a type
  // added by a newer release, not garbage.
  const newestKnown = Math.max(...codec.types.map((t) => QUEUE_SCHEMA_VERSIONS[t]));
  if (typeof type === 'string' && schemaVersion > newestKnown) {
    throw new NewerSchemaVersionError(codec.topic, type, schemaVersion, newestKnown);
  }
}

function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): QueueMessageProblem[] {
  return issues.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined ? 'Required' : issue.message,
  }));
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(message)';
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    const name = String(segment);
    return text === '' ? name : `${text}.${name}`;
  }, '');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}
