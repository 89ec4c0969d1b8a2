import { QueueTopics, spineTopics } from '@lanner/frames';
import { RESERVED_WORKER_QUEUE_IDS } from '@lanner/model';

/** The topics the api role uses, under an optional prefix (see ApiRoleOptions.topicPrefix). */
export interface ApiTopics {
  readonly executor: string;
  readonly executionUpdates: string;
  /** One entry per write through the API. */
  readonly audit: string;
  /** Every topic of the spine: each server role ensures them at start (createTopics is idempotent). */
  readonly ensured: readonly string[];
}

export function apiTopics(prefix = ''): ApiTopics {
  return {
    executor: `${prefix}${QueueTopics.executor}`,
    executionUpdates: `${prefix}${QueueTopics.executionUpdates}`,
    audit: `${prefix}${QueueTopics.audit}`,
    ensured: spineTopics(RESERVED_WORKER_QUEUE_IDS, prefix),
  };
}

export const API_TOPICS = Symbol('lanner.api-topics');
