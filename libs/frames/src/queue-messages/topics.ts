/** The Kafka topics of ARCHITECTURE.md ("Message flow"). */
export const QueueTopics = {
  /** Every event of an execution (key: execution id). */
  executor: 'lanner.executor',
  /** Job outcomes from controllers (key: execution id). */
  results: 'lanner.results',
  logs: 'lanner.logs',
  metrics: 'lanner.metrics',
  /** One entry per write through the API (key: tenant id); the indexer stores them. */
  audit: 'lanner.audit',
  executionUpdates: 'lanner.execution-updates',
  /**
   * Outcomes of trigger evaluations that ran on workers (a polling trigger's
   * poll), relayed by controllers like job results; every scheduler reads
   * them (key: the evaluation's task-run id).
   */
  triggerResults: 'lanner.trigger-results',
  /** Kill signals, capacity reconfiguration, token revocation, maintenance; read by every controller. */
  broadcast: 'lanner.broadcast',
} as const;

export type QueueTopic = (typeof QueueTopics)[keyof typeof QueueTopics];

export const WORKER_JOBS_TOPIC_PREFIX = 'lanner.worker-jobs.';

// WORKERS.md: a worker queue id is an RFC 1123 label.
const rfc1123Label = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function isWorkerQueueId(queueId: string): boolean {
  return rfc1123Label.test(queueId);
}

export class InvalidWorkerQueueIdError extends Error {
  constructor(readonly queueId: string) {
    super(
      `'${queueId}' is not a worker queue id: use at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit`,
    );
    this.name = 'InvalidWorkerQueueIdError';
  }
}

/** The topic of one worker queue's jobs (key: task-run id), e.g. `lanner.worker-jobs.gpu`. */
export function workerJobsTopic(queueId: string): string {
  if (!isWorkerQueueId(queueId)) throw new InvalidWorkerQueueIdError(queueId);
  return `${WORKER_JOBS_TOPIC_PREFIX}${queueId}`;
}

export const RESUBMITTED_JOBS_TOPIC_PREFIX = 'lanner.resubmitted-jobs.';

/**
 * The topic of one worker queue's re-queued jobs (the next attempt of a job
 * whose worker was lost), e.g. `lanner.resubmitted-jobs.gpu`: the controller
 * serves it before the queue's own topic, so a re-queued job does not wait
 * behind the queue's backlog of new work.
 */
export function resubmittedJobsTopic(queueId: string): string {
  if (!isWorkerQueueId(queueId)) throw new InvalidWorkerQueueIdError(queueId);
  return `${RESUBMITTED_JOBS_TOPIC_PREFIX}${queueId}`;
}

/** Both job topics of a worker queue (its new work, its re-queued jobs): they exist together. */
export function jobTopicsOf(queueId: string): [string, string] {
  return [workerJobsTopic(queueId), resubmittedJobsTopic(queueId)];
}

/** The worker queue id of a worker-jobs topic, or undefined for any other topic. */
export function workerQueueIdOfTopic(topic: string): string | undefined {
  if (!topic.startsWith(WORKER_JOBS_TOPIC_PREFIX)) return undefined;
  const queueId = topic.slice(WORKER_JOBS_TOPIC_PREFIX.length);
  return isWorkerQueueId(queueId) ? queueId : undefined;
}

/** Partitions of a topic Lanner creates (at most this many consumers of a group share it). */
export const DEFAULT_TOPIC_PARTITIONS = 3;

/**
 * Every topic of the spine, under an optional prefix (empty in deployments;
 * integration specs give one to keep apart on a shared broker). Each server role
 * ensures them at start: `createTopics` is idempotent. The job topics (new and
 * resubmitted) of the reserved worker queues always exist: the caller names
 * them (RESERVED_WORKER_QUEUE_IDS of @lanner/model, which this contract cannot import).
 */
export function spineTopics(reservedQueueIds: readonly string[], prefix = ''): string[] {
  return [
    QueueTopics.executor,
    QueueTopics.executionUpdates,
    QueueTopics.logs,
    QueueTopics.metrics,
    QueueTopics.audit,
    QueueTopics.results,
    QueueTopics.triggerResults,
    QueueTopics.broadcast,
    ...reservedQueueIds.map(workerJobsTopic),
    ...reservedQueueIds.map(resubmittedJobsTopic),
  ].map((topic) => `${prefix}${topic}`);
}
