import { text } from 'node:stream/consumers';
import { fileCallsIn, type FileCall, type FileLookup } from '@lanner/expressions';
import type { RunnableTask, TemplatedValue } from '@lanner/model';
import { StorageFileNotFound, type TaskFiles } from '@lanner/storage';
import { errorMessage } from '../error-message';
import { withWorkerText } from './resolve-task-secrets';

/** The most read() loads into a task property; a larger file goes to a script through inputFiles. */
export const READ_MAX_BYTES = 8 * 1024 * 1024;

function stringsOf(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((item) => stringsOf(item, into));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((item) => stringsOf(item, into));
}

/** Every read(), fileSize(), fileExists() and isFileEmpty() call the task's properties make. */
export function fileCallsOfTask(task: RunnableTask): FileCall[] {
  const texts: string[] = [];
  withWorkerText(
    task,
    (item) => {
      texts.push(item);
      return item;
    },
    (item: TemplatedValue) => {
      stringsOf(item, texts);
      return item;
    },
  );
  return texts.flatMap((item) => fileCallsIn(item));
}

async function answer(call: FileCall, files: TaskFiles): Promise<unknown> {
  const stat = await files.stat(call.uri);
  if (call.name === 'fileExists') return stat !== undefined;
  if (stat === undefined) throw new StorageFileNotFound(call.uri);
  if (call.name === 'fileSize') return stat.size;
  if (call.name === 'isFileEmpty') return stat.size === 0;
  if (stat.size > READ_MAX_BYTES) {
    throw new Error(
      `file ${call.uri} is ${stat.size} bytes, more than the ${READ_MAX_BYTES} bytes read() loads; give it to a script through inputFiles instead`,
    );
  }
  return text(await files.open(call.uri));
}

/**
 * The worker fetches what the task's file function calls need before the (synchronous)
 * rendering pass; a call that cannot be answered (a missing file, a URI outside the
 * namespace) fails when the pass reaches it, the message naming the segment and the URI.
 * Undefined when the task makes no such call or the worker has no storage.
 */
export async function fetchFileCalls(task: RunnableTask, files: TaskFiles | undefined): Promise<FileLookup | undefined> {
  const calls = fileCallsOfTask(task);
  if (calls.length === 0 || files === undefined) return undefined;
  const answers = new Map<string, { value: unknown } | { error: string }>();
  const key = (call: FileCall) => `${call.name}\u0000${call.uri}`;
  for (const call of calls) {
    if (answers.has(key(call))) continue;
    try {
      answers.set(key(call), { value: await answer(call, files) });
    } catch (error) {
      answers.set(key(call), { error: errorMessage(error, `file ${call.uri} could not be read`) });
    }
  }
  return (name, uri) => {
    const found = answers.get(key({ name, uri }));
    if (found === undefined) throw new Error(`file ${uri} was not fetched`);
    if ('error' in found) throw new Error(found.error);
    return found.value;
  };
}
