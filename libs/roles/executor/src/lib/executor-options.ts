import { randomBytes } from 'node:crypto';
import type { RandomSource } from '@lanner/expressions';
import type { RenderEnvironment } from '@lanner/state-machine';
import type { StorageConfig } from '@lanner/storage';
import { DEFAULT_TOPIC_PARTITIONS, QueueTopics, resubmittedJobsTopic, spineTopics, workerJobsTopic } from '@lanner/frames';
import { RESERVED_WORKER_QUEUE_IDS } from '@lanner/model';
import { DEFAULT_FLOW_TRIGGER_INDEX_TTL_MS } from './flow-trigger-index';
import { DEFAULT_ROUTING_REFRESH, type RoutingRefresh } from './worker-queue-routing';

/** The topics the executor produces and consumes (ARCHITECTURE.md "Message flow"). */
export interface ExecutorTopics {
  readonly executor: string;
  readonly executionUpdates: string;
  readonly broadcast: string;
  /** Where the system worker puts its tasks' log lines. */
  readonly logs: string;
  /** Where the system worker answers a trigger evaluation (it refuses them). */
  readonly triggerResults: string;
  /** Every topic a server role ensures at start (the executor's own and those of the data path). */
  readonly ensured: readonly string[];
  workerJobs(queueId: string): string;
  /** Where the next attempt of a job whose worker was lost goes: served before the queue's new work. */
  resubmittedJobs(queueId: string): string;
}

export interface ExecutorOptions {
  /** How often the delay loop looks for due timers (LANNER_TIMER_INTERVAL_MS). */
  readonly timerIntervalMs: number;
  /** The consumer group of `lanner.executor`: one partition owner per execution. */
  readonly groupId: string;
  readonly topics: ExecutorTopics;
  /** Partitions of the topics the executor creates when they are missing. */
  readonly partitions: number;
  /**
   * Re-announce pending work from the repository at start (see PendingWork): only
   * for a queue that loses its messages on restart (the in-process queue).
   */
  readonly rebuildPendingWorkAtStart: boolean;
  /** How long the routing reuses what it read: the live fleet (~1 s) and the namespace and tenant selectors (a few seconds). */
  readonly routingRefresh: RoutingRefresh;
  /**
   * What every rendering gets besides the execution: Kestra's `envs` and `globals`
   * (LANNER_EXPRESSION_ENV_PREFIX, LANNER_EXPRESSION_GLOBALS) and the random source
   * of uuid(), id() and randomInt() (the process's cryptographic generator).
   */
  readonly environment: RenderEnvironment;
  /** The system worker's internal storage (LANNER_STORAGE_*): without one, its storage tasks and purges fail saying so. */
  readonly storage?: StorageConfig;
  /** The most executions kept in memory between their events (see ExecutionCache). */
  readonly cachedExecutions: number;
  /**
   * How long a tenant's listening Flow triggers are used from memory when no
   * `broadcast.flows-changed` came (see FlowTriggerIndex): bounds how late a missed broadcast is made up for.
   */
  readonly flowTriggerIndexTtlMs: number;
}

/** uuid(), id() and randomInt() draw from the process's cryptographic generator. */
export const CRYPTO_RANDOM: RandomSource = { nextUint32: () => randomBytes(4).readUInt32BE(0) };

export const EXECUTOR_GROUP_ID = 'lanner-executor';

/** The consumer group of the executors' system workers: each `system` job is run by one of them. */
export function systemWorkerGroupId(executorGroupId: string): string {
  return `${executorGroupId}.system-worker`;
}
export const DEFAULT_TIMER_INTERVAL_MS = 1000;
/** Executions in flight kept in memory per executor process; an execution's entry is a few KB. */
export const DEFAULT_CACHED_EXECUTIONS = 10_000;

/**
 * The topic names. `prefix` is empty in every deployment; integration specs
 * give one so that their messages stay apart from other processes sharing the
 * same Kafka broker.
 */
export function executorTopics(prefix = ''): ExecutorTopics {
  const workerJobs = (queueId: string): string => `${prefix}${workerJobsTopic(queueId)}`;
  return {
    executor: `${prefix}${QueueTopics.executor}`,
    executionUpdates: `${prefix}${QueueTopics.executionUpdates}`,
    broadcast: `${prefix}${QueueTopics.broadcast}`,
    logs: `${prefix}${QueueTopics.logs}`,
    triggerResults: `${prefix}${QueueTopics.triggerResults}`,
    ensured: spineTopics(RESERVED_WORKER_QUEUE_IDS, prefix),
    workerJobs,
    resubmittedJobs: (queueId: string): string => `${prefix}${resubmittedJobsTopic(queueId)}`,
  };
}

export function executorOptions(overrides: Partial<ExecutorOptions> = {}): ExecutorOptions {
  return {
    timerIntervalMs: overrides.timerIntervalMs ?? DEFAULT_TIMER_INTERVAL_MS,
    groupId: overrides.groupId ?? EXECUTOR_GROUP_ID,
    topics: overrides.topics ?? executorTopics(),
    partitions: overrides.partitions ?? DEFAULT_TOPIC_PARTITIONS,
    rebuildPendingWorkAtStart: overrides.rebuildPendingWorkAtStart ?? false,
    routingRefresh: overrides.routingRefresh ?? DEFAULT_ROUTING_REFRESH,
    environment: { random: CRYPTO_RANDOM, ...overrides.environment },
    ...(overrides.storage === undefined ? {} : { storage: overrides.storage }),
    cachedExecutions: overrides.cachedExecutions ?? DEFAULT_CACHED_EXECUTIONS,
    flowTriggerIndexTtlMs: overrides.flowTriggerIndexTtlMs ?? DEFAULT_FLOW_TRIGGER_INDEX_TTL_MS,
  };
}
