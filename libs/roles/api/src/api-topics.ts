import { QueueTopics, workerJobsTopic } from '@lanner/frames';
import { DEFAULT_WORKER_QUEUE_ID, SYSTEM_WORKER_QUEUE_ID } from '@lanner/repository';

/** The topics the api role uses, under an optional prefix (see ApiRoleOptions.topicPrefix). */
export interface ApiTopics {
  readonly executor: string;
  readonly executionUpdates: string;
  /** Every topic of the spine: each server role ensures them at start (createTopics is idempotent). */
  readonly ensured: readonly string[];
}

export function apiTopics(prefix = ''): ApiTopics {
  const spine = [
    QueueTopics.executor,
    QueueTopics.executionUpdates,
    QueueTopics.logs,
    QueueTopics.metrics,
    QueueTopics.results,
    QueueTopics.broadcast,
    workerJobsTopic(DEFAULT_WORKER_QUEUE_ID),
    workerJobsTopic(SYSTEM_WORKER_QUEUE_ID),
  ];
  return {
    executor: `${prefix}${QueueTopics.executor}`,
    executionUpdates: `${prefix}${QueueTopics.executionUpdates}`,
    ensured: spine.map((topic) => `${prefix}${topic}`),
  };
}

export const API_TOPICS = Symbol('lanner.api-topics');
