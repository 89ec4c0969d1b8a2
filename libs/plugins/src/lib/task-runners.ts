import type { RunnableTask } from '@lanner/model';
import { errorMessage } from './error-message';
import type { JsonObject } from './json';
import { DEFAULT_OUTPUT_INLINE_MAX_BYTES, storeLargeOutputs } from './large-outputs';
import { capLogLine, LOG_LINE_MAX_BYTES } from './log-line';
import { httpRequestRunner, type HttpRequestOptions } from './runners/http-request.runner';
import { nodeScriptRunner, shellCommandsRunner, type ScriptOptions } from './runners/script-runners';
import {
  localFilesRunner,
  purgeCurrentExecutionFilesRunner,
  storageConcatRunner,
  storageDeleteRunner,
  storageSizeRunner,
  storageSplitRunner,
  storageWriteRunner,
} from './runners/storage-runners';
import { failRunner, logRunner, outputValuesRunner, returnRunner, sleepRunner } from './runners/simple-runners';
import { environmentSecretSource } from './secrets/environment-secret-source';
import { fetchFileCalls } from './secrets/file-functions';
import { resolveTaskSecrets, TaskSecretError } from './secrets/resolve-task-secrets';
import { SecretMask } from './secrets/secret-mask';
import type {
  TaskKindContext,
  TaskKindResult,
  TaskLogSink,
  TaskOutcome,
  TaskRunner,
  TaskRunnerRegistry,
} from './task-runner.port';

export interface TaskRunnerOptions {
  readonly http?: HttpRequestOptions;
  readonly scripts?: ScriptOptions;
}

/** Each runnable kind mapped to its implementation. */
export function createTaskRunners(options: TaskRunnerOptions = {}): TaskRunnerRegistry {
  return {
    Log: logRunner,
    Return: returnRunner,
    OutputValues: outputValuesRunner,
    Sleep: sleepRunner,
    HttpRequest: httpRequestRunner(options.http),
    ShellCommands: shellCommandsRunner(options.scripts),
    NodeScript: nodeScriptRunner(options.scripts),
    Fail: failRunner,
    StorageWrite: storageWriteRunner,
    StorageSize: storageSizeRunner,
    StorageDelete: storageDeleteRunner,
    StorageConcat: storageConcatRunner,
    StorageSplit: storageSplitRunner,
    PurgeCurrentExecutionFiles: purgeCurrentExecutionFilesRunner,
    LocalFiles: localFilesRunner,
  };
}

/** FLOWS.md "Limits": a result frame is at most 4 MiB by default. */
export const DEFAULT_MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export interface CreateTaskRunnerOptions extends TaskRunnerOptions {
  /** Default: `createTaskRunners(options)`. */
  readonly registry?: TaskRunnerRegistry;
  /** Outputs larger than this (as JSON) fail the task: they would not fit in a result frame. */
  readonly maxOutputBytes?: number;
  /**
   * A Return value or an OutputValues value larger than this is stored in internal
   * storage and output as its URI (LANNER_STORAGE_OUTPUT_INLINE_MAX_BYTES); default 1 MiB.
   */
  readonly outputInlineMaxBytes?: number;
}

/** The reason a timeout aborts with, so the outcome can say FAILED (timeout) rather than KILLED. */
export class TaskTimeout extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly timeoutMs?: number) {
    super(timeoutMs === undefined ? 'the task timed out' : `the task timed out after ${timeoutMs} ms`);
  }
}

/**
 * The worker's TaskRunner: enforces the task's `timeoutMs`, resolves its secrets just
 * before it runs, masks their values in what it logs and in its error, caps log
 * lines, dispatches to the kind's implementation and turns every way a run can end
 * into an outcome:
 * - the context's signal aborted -> KILLED, unless its reason is a timeout
 *   (`TaskTimeout` or a DOMException `TimeoutError` as from `AbortSignal.timeout`) -> FAILED;
 * - an unknown secret -> FAILED naming the secret, never a value, without running;
 * - an implementation that throws -> FAILED with the error's message only.
 */
export function createTaskRunner(options: CreateTaskRunnerOptions = {}): TaskRunner {
  const registry = options.registry ?? createTaskRunners(options);
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const outputInlineMaxBytes = options.outputInlineMaxBytes ?? DEFAULT_OUTPUT_INLINE_MAX_BYTES;

  return {
    async run(task, context) {
      const { signal, dispose } = taskSignal(context.signal, task.timeoutMs);
      const mask = new SecretMask();
      try {
        if (signal.aborted) return abortedOutcome(signal);
        let resolved: RunnableTask;
        try {
          const files = await fetchFileCalls(task, context.files);
          resolved = resolveTaskSecrets(task, context.secrets ?? environmentSecretSource(), mask, files);
        } catch (error) {
          return failed(
            error instanceof TaskSecretError ? error.message : 'the task properties could not be rendered on this worker',
          );
        }
        const log = atLeast(task.logLevel, maskedLog(context.log, mask));
        let result: TaskKindResult;
        try {
          result = await dispatch(registry, resolved, {
            signal,
            log,
            workingDirectory: context.workingDirectory,
            now: context.now,
            ...(context.files ? { files: context.files } : {}),
          });
        } catch (error) {
          if (signal.aborted) return abortedOutcome(signal);
          return failed(mask.apply(errorMessage(error, 'the task failed')));
        }
        if (signal.aborted) return abortedOutcome(signal, result.outputs);
        try {
          const large = await storeLargeOutputs(resolved, result.outputs, context.files, outputInlineMaxBytes);
          for (const { path, bytes, uri } of large.stored) {
            log('INFO', `output ${path} is ${bytes} bytes, over ${outputInlineMaxBytes}: stored as ${uri}`);
          }
          result = { ...result, outputs: large.outputs };
        } catch (error) {
          return failed(mask.apply(`the task's large outputs could not be stored: ${errorMessage(error, 'storage failed')}`));
        }
        const size = Buffer.byteLength(JSON.stringify(result.outputs));
        if (size > maxOutputBytes) {
          return failed(
            `the task's outputs are ${size} bytes, more than the ${maxOutputBytes} bytes a result may carry; write large data to internal storage and output its URI`,
          );
        }
        return {
          state: result.state,
          outputs: result.outputs,
          error: result.error === undefined ? undefined : mask.apply(result.error),
          cacheHit: false,
        };
      } finally {
        dispose();
      }
    },
  };
}

function dispatch(registry: TaskRunnerRegistry, task: RunnableTask, context: TaskKindContext): Promise<TaskKindResult> {
  switch (task.kind) {
    case 'Log':
      return registry.Log.run(task, context);
    case 'Return':
      return registry.Return.run(task, context);
    case 'OutputValues':
      return registry.OutputValues.run(task, context);
    case 'Sleep':
      return registry.Sleep.run(task, context);
    case 'HttpRequest':
      return registry.HttpRequest.run(task, context);
    case 'ShellCommands':
      return registry.ShellCommands.run(task, context);
    case 'NodeScript':
      return registry.NodeScript.run(task, context);
    case 'Fail':
      return registry.Fail.run(task, context);
    case 'StorageWrite':
      return registry.StorageWrite.run(task, context);
    case 'StorageSize':
      return registry.StorageSize.run(task, context);
    case 'StorageDelete':
      return registry.StorageDelete.run(task, context);
    case 'StorageConcat':
      return registry.StorageConcat.run(task, context);
    case 'StorageSplit':
      return registry.StorageSplit.run(task, context);
    case 'PurgeCurrentExecutionFiles':
      return registry.PurgeCurrentExecutionFiles.run(task, context);
    case 'LocalFiles':
      return registry.LocalFiles.run(task, context);
  }
}

/** The context's signal, plus the task's own timeout when it has one. */
function taskSignal(outer: AbortSignal, timeoutMs: number | undefined): { signal: AbortSignal; dispose: () => void } {
  if (timeoutMs === undefined) return { signal: outer, dispose: () => undefined };
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(outer.reason);
  if (outer.aborted) onOuterAbort();
  else outer.addEventListener('abort', onOuterAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new TaskTimeout(timeoutMs)), timeoutMs);
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuterAbort);
    },
  };
}

const LEVEL_ORDER = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** Kestra's task `logLevel`: lines below it are not kept. */
function atLeast(level: RunnableTask['logLevel'], sink: TaskLogSink): TaskLogSink {
  if (level === undefined) return sink;
  const lowest = LEVEL_ORDER.indexOf(level);
  return (lineLevel, message) => {
    if (LEVEL_ORDER.indexOf(lineLevel) >= lowest) sink(lineLevel, message);
  };
}

function maskedLog(sink: TaskLogSink, mask: SecretMask): TaskLogSink {
  // Mask before capping: a cut could otherwise leave the start of a secret unmasked.
  return (level, message) => {
    try {
      sink(level, capLogLine(mask.apply(message), LOG_LINE_MAX_BYTES));
    } catch {
      // A failing sink must not fail the task or, called from a pipe's data event,
      // crash the worker; the line is lost and the task goes on.
    }
  };
}

function abortedOutcome(signal: AbortSignal, outputs: JsonObject = {}): TaskOutcome {
  const reason: unknown = signal.reason;
  // By name, not instanceof: AbortSignal.timeout's DOMException may come from another realm (Jest's vm).
  const timedOut =
    reason instanceof TaskTimeout ||
    (typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError');
  if (timedOut)
    return {
      state: 'FAILED',
      outputs,
      error: reason instanceof TaskTimeout ? reason.message : 'the task timed out',
      cacheHit: false,
    };
  return { state: 'KILLED', outputs, error: 'the task was killed', cacheHit: false };
}

function failed(error: string): TaskOutcome {
  return { state: 'FAILED', outputs: {}, error, cacheHit: false };
}
