export type { JsonObject, JsonValue } from './lib/json';
export type {
  RunnableKind,
  SecretSource,
  TaskKindContext,
  TaskKindResult,
  TaskKindRunner,
  TaskLogSink,
  TaskOutcome,
  TaskOutcomeState,
  TaskRunContext,
  TaskRunner,
  TaskRunnerRegistry,
} from './lib/task-runner.port';
export { createTaskRunner, createTaskRunners, DEFAULT_MAX_OUTPUT_BYTES, TaskTimeout } from './lib/task-runners';
export type { CreateTaskRunnerOptions, TaskRunnerOptions } from './lib/task-runners';
export type { HttpRequestOptions } from './lib/runners/http-request.runner';
export { DEFAULT_MAX_RESPONSE_BODY_BYTES } from './lib/runners/http-request.runner';
export type { ScriptOptions } from './lib/runners/script-runners';
export type { TaskUser } from './lib/process/run-process';
export { INHERITED_VARIABLES } from './lib/process/process-environment';
export { environmentSecretSource, SECRET_ENV_PREFIX } from './lib/secrets/environment-secret-source';
export { SECRET_MASK } from './lib/secrets/secret-mask';
export { capLogLine, LOG_LINE_MAX_BYTES } from './lib/log-line';
export {
  createTaskOutputCache,
  storageTaskOutputCache,
  TASK_CACHE_FOLDER,
  TASK_CACHE_STORAGE_TENANT,
} from './lib/cache/task-output-cache';
export type { TaskCacheScope, TaskOutputCache } from './lib/cache/task-output-cache';
export { runWithCache } from './lib/cache/run-with-cache';
export type { CachedRun } from './lib/cache/run-with-cache';
export { runHttpPoll } from './lib/runners/http-poll.runner';
export type { HttpPollContext, HttpPollDefinition, HttpPollResult } from './lib/runners/http-poll.runner';
export { DEFAULT_OUTPUT_INLINE_MAX_BYTES } from './lib/large-outputs';
