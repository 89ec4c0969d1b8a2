import type { LogLevel, RunnableTask } from '@lanner/model';
import type { TaskFiles } from '@lanner/storage';
import type { JsonObject } from './json';

/**
 * Receives the log lines a task emits while it runs (streamed live, not batched at
 * the end). Lines arrive already capped at 64 KiB and with secret values masked.
 */
export type TaskLogSink = (level: LogLevel, message: string) => void;

/** A secret by name, or undefined when this worker has no such secret. */
export type SecretSource = (name: string) => string | undefined;

export interface TaskRunContext {
  /** Aborted on a kill (outcome KILLED) or a timeout (outcome FAILED, see `taskTimeoutReason`). */
  readonly signal: AbortSignal;
  readonly log: TaskLogSink;
  /** Default: `environmentSecretSource(process.env)` (`SECRET_<NAME>`, base64). */
  readonly secrets?: SecretSource;
  /** An existing folder the task may write in; processes start there. */
  readonly workingDirectory: string;
  /** The worker's clock (cache expiry); injected so tests need not wait. */
  readonly now: () => Date;
  /** Internal storage for this task run; absent on a worker without one (file properties then fail the task). */
  readonly files?: TaskFiles;
}

export type TaskOutcomeState = 'SUCCESS' | 'WARNING' | 'FAILED' | 'KILLED';

export interface TaskOutcome {
  readonly state: TaskOutcomeState;
  readonly outputs: JsonObject;
  /** Why the task failed or was killed; never a secret value or a stack trace. */
  readonly error?: string;
  /** True when the outputs come from the task output cache and the task did not run. */
  readonly cacheHit: boolean;
}

/** Runs one runnable task to its end; never throws (every failure is an outcome). */
export interface TaskRunner {
  run(task: RunnableTask, context: TaskRunContext): Promise<TaskOutcome>;
}

/** What a task implementation gets: secrets already resolved, the log already masked and capped. */
export interface TaskKindContext {
  readonly signal: AbortSignal;
  readonly log: TaskLogSink;
  readonly workingDirectory: string;
  readonly now: () => Date;
  readonly files?: TaskFiles;
}

/** The result of one implementation; KILLED and cache hits are decided around it. */
export interface TaskKindResult {
  readonly state: Exclude<TaskOutcomeState, 'KILLED'>;
  readonly outputs: JsonObject;
  readonly error?: string;
}

/**
 * One task type's implementation. It may throw (a refused connection, a bad
 * property): the TaskRunner turns that into a FAILED outcome with the message only.
 */
export interface TaskKindRunner<T extends RunnableTask> {
  run(task: T, context: TaskKindContext): Promise<TaskKindResult>;
}

export type RunnableKind = RunnableTask['kind'];

/** Every runnable kind mapped to its implementation. */
export type TaskRunnerRegistry = { readonly [K in RunnableKind]: TaskKindRunner<Extract<RunnableTask, { kind: K }>> };
