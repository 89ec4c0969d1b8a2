import { ExpressionError, renderSecrets, renderSecretsInValue, type FileLookup } from '@lanner/expressions';
import type { RunnableTask, TemplatedValue } from '@lanner/model';
import type { SecretSource } from '../task-runner.port';
import { UnreadableSecretError } from './environment-secret-source';
import { SecretMask } from './secret-mask';

/** A task property could not be finished on the worker; the message names the secret or segment, never a value. */
export class TaskSecretError extends Error {
  override readonly name = 'TaskSecretError';
}

/**
 * The worker's last rendering pass, just before a task runs: resolves the
 * `{{ secret('NAME') }}` segments the executor left in the task's properties (and
 * restores the delimiters it escaped), recording every resolved value in `mask`.
 * Only the properties a task type renders are touched: the rest (ids, selectors,
 * retry) was used by the executor and is not task input.
 */
export function resolveTaskSecrets(task: RunnableTask, source: SecretSource, mask: SecretMask, files?: FileLookup): RunnableTask {
  const problems: Error[] = [];
  const missing: string[] = [];
  const resolve = (name: string): string | undefined => {
    let value: string | undefined;
    try {
      value = source(name);
    } catch (error) {
      problems.push(
        error instanceof UnreadableSecretError ? error : new TaskSecretError(`secret '${name}' could not be read on this worker`),
      );
      return undefined;
    }
    if (value === undefined) missing.push(name);
    else mask.add(value);
    return value;
  };
  try {
    const options = files ? { files } : {};
    return withWorkerText(
      task,
      (text) => renderSecrets(text, resolve, options),
      (value) => renderSecretsInValue(value, resolve, options) as TemplatedValue,
    );
  } catch (error) {
    // The expression library names the whole segment; say plainly which secret it is.
    if (problems.length > 0) throw new TaskSecretError(problems[0].message);
    if (missing.length > 0) throw new TaskSecretError(`secret '${missing[0]}' is not defined on this worker`);
    if (error instanceof ExpressionError) throw new TaskSecretError(error.message);
    throw new TaskSecretError('a task property could not be rendered on this worker');
  }
}

/** The task with `text` applied to each worker-text property and `value` to each templated value. */
export function withWorkerText(
  task: RunnableTask,
  text: (t: string) => string,
  value: (v: TemplatedValue) => TemplatedValue,
): RunnableTask {
  const map = (record: Readonly<Record<string, string>> | undefined) =>
    record === undefined ? undefined : Object.fromEntries(Object.entries(record).map(([key, item]) => [key, text(item)]));
  switch (task.kind) {
    case 'Log':
      return { ...task, message: value(task.message) };
    case 'Return':
      return { ...task, format: text(task.format) };
    case 'OutputValues':
      return { ...task, values: Object.fromEntries(Object.entries(task.values).map(([key, item]) => [key, value(item)])) };
    case 'Sleep':
      return task;
    case 'HttpRequest':
      return {
        ...task,
        uri: text(task.uri),
        headers: map(task.headers),
        body: task.body === undefined ? undefined : value(task.body),
        contentType: task.contentType === undefined ? undefined : text(task.contentType),
      };
    case 'ShellCommands':
      return { ...task, commands: task.commands.map(text), env: map(task.env), inputFiles: map(task.inputFiles) };
    case 'NodeScript':
      return { ...task, script: text(task.script), env: map(task.env), inputFiles: map(task.inputFiles) };
    case 'Fail':
      return { ...task, errorMessage: text(task.errorMessage) };
    case 'StorageWrite':
      return { ...task, content: text(task.content), extension: text(task.extension) };
    case 'StorageSize':
    case 'StorageDelete':
      return { ...task, uri: text(task.uri) };
    case 'StorageConcat':
      return {
        ...task,
        files: typeof task.files === 'string' ? text(task.files) : task.files.map(text),
        separator: task.separator === undefined ? undefined : text(task.separator),
        extension: text(task.extension),
      };
    case 'StorageSplit':
      return {
        ...task,
        from: text(task.from),
        by: { ...task.by, value: text(task.by.value) },
        separator: text(task.separator),
      };
    case 'PurgeCurrentExecutionFiles':
      return task;
    case 'LocalFiles':
      return { ...task, inputs: map(task.inputs), outputs: task.outputs?.map(text) };
  }
}
