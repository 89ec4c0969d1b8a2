import type { ExecutionRecordState, RecordedStateChange, StoredJson, TaskRunRecordState } from './states';

export interface ExecutionRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly flowRevision: number;
  readonly state: ExecutionRecordState;
  readonly stateHistories: RecordedStateChange<ExecutionRecordState>[];
  readonly inputs: StoredJson;
  readonly outputs: StoredJson;
  readonly labels: Record<string, string>;
  readonly trigger: StoredJson;
  /** Optimistic concurrency: an update names the version it read; each write adds one. */
  readonly version: number;
  readonly parentExecutionId: string | null;
  readonly parentTaskRunId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly startedAt: Date | null;
  readonly endedAt: Date | null;
  /** Why the execution itself failed (a quarantine, a concurrency limit), as users read it; absent when it did not say. */
  readonly error?: string | null;
}

export interface TaskRunAttemptRecord {
  /** 1-based. */
  readonly attempt: number;
  readonly workerId: string | null;
  readonly workerQueueId: string | null;
  readonly state: TaskRunRecordState;
  readonly outputs: StoredJson;
  /** What the user is shown about a failure (a message, never a server stack trace). */
  readonly error: StoredJson;
  readonly startedAt: Date | null;
  readonly endedAt: Date | null;
}

export interface TaskRunRecord {
  readonly id: string;
  readonly executionId: string;
  readonly taskId: string;
  readonly parentTaskRunId: string | null;
  /** The ForEach value this run iterates on. */
  readonly value: string | null;
  readonly state: TaskRunRecordState;
  readonly stateHistories: RecordedStateChange<TaskRunRecordState>[];
  readonly outputs: StoredJson;
  /** Where the resolver sent it; kept so a re-dispatched job keeps queue and selector. */
  readonly workerQueueId: string | null;
  readonly workerSelector: StoredJson;
  /** Why it waits or went where it went, in words a user understands. */
  readonly dispatchReason: string | null;
  /**
   * Why it failed (or ended in WARNING), in words a user understands: a
   * flowable's own reason (its timeout, a Fail task's message, a subflow that
   * failed) or its last attempt's error. Never a server stack trace.
   */
  readonly error: string | null;
  readonly attempts: TaskRunAttemptRecord[];
}

export interface ExecutionWithTaskRuns extends ExecutionRecord {
  readonly taskRuns: TaskRunRecord[];
}

export interface NewExecution {
  readonly id: string;
  readonly namespace: string;
  readonly flowId: string;
  readonly flowRevision: number;
  readonly state: ExecutionRecordState;
  readonly stateHistories: RecordedStateChange<ExecutionRecordState>[];
  readonly inputs?: StoredJson;
  readonly labels?: Record<string, string>;
  readonly trigger?: StoredJson;
  readonly parentExecutionId?: string | null;
  readonly parentTaskRunId?: string | null;
}

/** A task run written with its execution; attempts are upserted by number. */
export type TaskRunWrite = TaskRunRecord;

/** What an update may change; absent fields keep their stored value. */
export interface ExecutionChanges {
  readonly state?: ExecutionRecordState;
  readonly stateHistories?: RecordedStateChange<ExecutionRecordState>[];
  readonly outputs?: StoredJson;
  readonly labels?: Record<string, string>;
  readonly startedAt?: Date | null;
  readonly endedAt?: Date | null;
  readonly error?: string | null;
  /** Task runs to insert or replace in the same transaction. */
  readonly taskRuns?: TaskRunWrite[];
}

export interface ExecutionSearchQuery {
  readonly namespace?: string;
  /** Only this namespace and its children (`a.b` and `a.b.*`): what a namespace-bound caller may see. */
  readonly namespacePrefix?: string;
  readonly flowId?: string;
  readonly state?: ExecutionRecordState;
  /** Executions carrying every one of these labels (key and value). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Created at or after this instant. */
  readonly createdFrom?: Date;
  /** Created before this instant. */
  readonly createdTo?: Date;
  /** 1-based. */
  readonly page: number;
  readonly size: number;
}
