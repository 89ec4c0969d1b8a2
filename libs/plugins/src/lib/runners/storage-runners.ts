import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import type {
  LocalFilesTask,
  PurgeCurrentExecutionFilesTask,
  StorageConcatTask,
  StorageDeleteTask,
  StorageSizeTask,
  StorageSplitTask,
  StorageWriteTask,
} from '@lanner/model';
import { fileNameOf, parseStorageUri, StorageFileNotFound, type TaskFiles } from '@lanner/storage';
import type { TaskKindContext, TaskKindRunner } from '../task-runner.port';
import { uploadOutputFiles, writeInputFiles } from './script-files';

// Kestra's core storage tasks. Their properties arrive rendered; files are streamed
// through internal storage, never held whole in memory.

function storageOf(context: TaskKindContext, taskId: string): TaskFiles {
  if (!context.files) throw new Error(`task '${taskId}' needs internal storage, and this worker has none configured`);
  return context.files;
}

/** A new file name of the task run: unique, with the extension the task asked for. */
function newFileName(extension: string, property: string): string {
  if (extension !== '' && !/^\.?[A-Za-z0-9_-]{1,32}$/.test(extension)) {
    throw new Error(`${property} '${extension}' is not a file extension (letters, digits, '-' or '_' after an optional dot)`);
  }
  const suffix = extension === '' || extension.startsWith('.') ? extension : `.${extension}`;
  return `${randomUUID()}${suffix}`;
}

/** Kestra's Write: `content` stored as a new file; output `uri`. */
export const storageWriteRunner: TaskKindRunner<StorageWriteTask> = {
  async run(task, context) {
    const files = storageOf(context, task.id);
    const stored = await files.upload(newFileName(task.extension, 'extension'), Readable.from([Buffer.from(task.content)]));
    return { state: 'SUCCESS', outputs: { uri: stored.uri } };
  },
};

/** Kestra's Size: output `size`, the file's bytes; a missing file fails the task naming it. */
export const storageSizeRunner: TaskKindRunner<StorageSizeTask> = {
  async run(task, context) {
    const stat = await storageOf(context, task.id).stat(task.uri);
    if (stat === undefined) throw new StorageFileNotFound(task.uri);
    return { state: 'SUCCESS', outputs: { size: stat.size } };
  },
};

/** Kestra's Delete: outputs `uri` and `deleted`; a missing file fails only with `errorOnMissing`. */
export const storageDeleteRunner: TaskKindRunner<StorageDeleteTask> = {
  async run(task, context) {
    const deleted = await storageOf(context, task.id).delete(task.uri);
    if (!deleted && task.errorOnMissing) throw new StorageFileNotFound(task.uri);
    return { state: 'SUCCESS', outputs: { uri: task.uri, deleted } };
  },
};

/** Concat's `files`: a list of URIs, or a text holding a JSON list of them (as Kestra reads it). */
function concatUris(files: StorageConcatTask['files']): string[] {
  if (typeof files !== 'string') return [...files];
  let parsed: unknown;
  try {
    parsed = JSON.parse(files);
  } catch {
    throw new Error(`files must be a list of kestra:/// URIs or a JSON list of them; it rendered to ${preview(files)}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((item): item is string => typeof item === 'string')) {
    throw new Error(`files must be a list of kestra:/// URIs; it rendered to ${preview(files)}`);
  }
  return parsed;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

/** Kestra's Concat: the files one after the other (separator between them) as one new file; output `uri`. */
export const storageConcatRunner: TaskKindRunner<StorageConcatTask> = {
  async run(task, context) {
    const files = storageOf(context, task.id);
    const uris = concatUris(task.files);
    if (uris.length === 0) throw new Error('files must name at least one file');
    const name = newFileName(task.extension, 'extension');
    // Every file is opened before the upload starts, so a missing one fails the task
    // with its URI and leaves no partial file behind.
    for (const uri of uris) {
      if ((await files.stat(uri)) === undefined) throw new StorageFileNotFound(uri);
    }
    const separator = task.separator === undefined || task.separator === '' ? undefined : Buffer.from(task.separator);
    async function* concatenated(): AsyncGenerator<Buffer> {
      for (const [index, uri] of uris.entries()) {
        if (index > 0 && separator) yield separator;
        const body = await files.open(uri);
        for await (const chunk of body) yield chunk as Buffer;
      }
    }
    const stored = await files.upload(name, Readable.from(concatenated(), { objectMode: false }));
    return { state: 'SUCCESS', outputs: { uri: stored.uri } };
  },
};

const BYTE_UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** Split's `bytes`: a number of bytes, or a size such as `10MB` or `200KB` (units of 1024). */
export function parseByteSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?B)?\s*$/i.exec(text);
  const bytes = match ? Math.floor(Number(match[1]) * (BYTE_UNITS[(match[2] ?? 'B').toUpperCase()] ?? 1)) : NaN;
  if (!Number.isFinite(bytes) || bytes < 1) {
    throw new Error(`bytes must be a positive size such as 10MB, 200KB or 1024; it rendered to ${preview(text)}`);
  }
  return bytes;
}

function positiveCount(text: string, property: string): number {
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${property} must be a positive whole number; it rendered to ${preview(text)}`);
  }
  return value;
}

/** The rows of a stream, cut at `separator` (the separator not included); the last one may be unterminated. */
async function* rowsOf(body: Readable, separator: string): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of body) {
    pending += decoder.write(chunk as Buffer);
    let at = pending.indexOf(separator);
    while (at >= 0) {
      yield pending.slice(0, at);
      pending = pending.slice(at + separator.length);
      at = pending.indexOf(separator);
    }
  }
  pending += decoder.end();
  if (pending !== '') yield pending;
}

async function writeTo(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

async function closed(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'close');
}

/**
 * Kestra's Split: the rows of `from` (each written with the separator after it) dealt
 * into part files in the working directory, then each non-empty part uploaded as a file
 * of the task run; output `uris`, in order. Nothing is held whole in memory.
 */
export const storageSplitRunner: TaskKindRunner<StorageSplitTask> = {
  async run(task, context) {
    const files = storageOf(context, task.id);
    if (task.separator === '') throw new Error('separator must not be empty');
    const limit = task.by.kind === 'bytes' ? parseByteSize(task.by.value) : positiveCount(task.by.value, task.by.kind);
    if (task.by.kind === 'partitions' && limit > 10_000) throw new Error('partitions must be at most 10000');
    const source = fileNameOf(parseStorageUri(task.from));
    const extension = /\.[A-Za-z0-9_-]{1,32}$/.exec(source)?.[0] ?? '';
    const body = await files.open(task.from);
    const folder = await mkdtemp(join(context.workingDirectory, 'split-'));
    try {
      const parts: { path: string; stream: WriteStream; bytes: number; rows: number }[] = [];
      const open = () => {
        const path = join(folder, `${parts.length}`);
        const part = { path, stream: createWriteStream(path), bytes: 0, rows: 0 };
        parts.push(part);
        return part;
      };
      if (task.by.kind === 'partitions') for (let index = 0; index < limit; index += 1) open();
      let current = task.by.kind === 'partitions' ? undefined : open();
      let index = 0;
      for await (const row of rowsOf(body, task.separator)) {
        const text = row + task.separator;
        const size = Buffer.byteLength(text);
        if (task.by.kind === 'partitions') {
          current = parts[index % limit];
        } else if (
          current !== undefined &&
          current.rows > 0 &&
          (task.by.kind === 'rows' ? current.rows >= limit : current.bytes + size > limit)
        ) {
          await closed(current.stream);
          current = open();
        }
        if (current === undefined) continue;
        await writeTo(current.stream, text);
        current.bytes += size;
        current.rows += 1;
        index += 1;
      }
      for (const part of parts) if (!part.stream.closed) await closed(part.stream);
      const uris: string[] = [];
      for (const [number, part] of parts.filter((candidate) => candidate.rows > 0).entries()) {
        const stored = await files.upload(`split-${number}${extension}`, createReadStream(part.path));
        uris.push(stored.uri);
      }
      return { state: 'SUCCESS', outputs: { uris } };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  },
};

/** Kestra's PurgeCurrentExecutionFiles: every file of this execution deleted; output `uris`, the files deleted. */
export const purgeCurrentExecutionFilesRunner: TaskKindRunner<PurgeCurrentExecutionFilesTask> = {
  async run(task, context) {
    const uris = await storageOf(context, task.id).purgeExecution();
    return { state: 'SUCCESS', outputs: { uris } };
  },
};

/**
 * Kestra's deprecated LocalFiles: `inputs` written in the task's working directory (a
 * kestra:/// URI is fetched), then the files matching `outputs` stored; output `uris`
 * (name -> URI). Without a WorkingDirectory around it, it sees only its own files.
 */
export const localFilesRunner: TaskKindRunner<LocalFilesTask> = {
  async run(task, context) {
    await writeInputFiles({ inputFiles: task.inputs }, context);
    const uris = await uploadOutputFiles({ outputFiles: task.outputs }, context);
    return { state: 'SUCCESS', outputs: { uris: uris ?? {} } };
  },
};
