import { createReadStream, createWriteStream } from 'node:fs';
import { chown, lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ScriptFiles } from '@lanner/model';
import { fileNameSegments } from '@lanner/storage';
import type { JsonObject } from '../json';
import type { TaskUser } from '../process/run-process';
import type { TaskKindContext } from '../task-runner.port';

const STORAGE_URI = /^kestra:\/\/\//;

function storageOf(context: TaskKindContext, what: string) {
  if (!context.files) throw new Error(`${what} needs internal storage, and this worker has none configured`);
  return context.files;
}

/**
 * Kestra's `namespaceFiles`: when enabled, the namespace's files matching `include` (every
 * one when absent) and no `exclude` glob are streamed into the working directory at their
 * paths, before `inputFiles` (which win on a clash).
 */
export async function writeNamespaceFiles(task: ScriptFiles, context: TaskKindContext, owner?: TaskUser): Promise<void> {
  const spec = task.namespaceFiles;
  if (spec === undefined || !spec.enabled) return;
  const files = storageOf(context, 'namespaceFiles');
  const include = (spec.include ?? []).map(globPattern);
  const exclude = (spec.exclude ?? []).map(globPattern);
  for (const file of await files.namespaceFiles()) {
    if (include.length > 0 && !include.some((pattern) => pattern.test(file.path))) continue;
    if (exclude.some((pattern) => pattern.test(file.path))) continue;
    const segments = fileNameSegments(file.path);
    const path = join(context.workingDirectory, ...segments);
    await mkdir(dirname(path), { recursive: true });
    await pipeline(await files.open(file.uri), createWriteStream(path, { mode: 0o600 }), { signal: context.signal });
    if (owner !== undefined) await chownPath(context.workingDirectory, segments, owner);
  }
}

async function chownPath(root: string, segments: readonly string[], owner: TaskUser): Promise<void> {
  for (let depth = 1; depth <= segments.length; depth += 1) {
    await chown(join(root, ...segments.slice(0, depth)), owner.uid, owner.gid);
  }
}

/**
 * Kestra's `inputFiles`: each entry becomes a file of the working directory. A value that
 * is a `kestra:///` URI (an earlier task's output file, a FILE input) is streamed from
 * internal storage; any other value is the file's content.
 */
export async function writeInputFiles(task: ScriptFiles, context: TaskKindContext, owner?: TaskUser): Promise<void> {
  for (const [name, value] of Object.entries(task.inputFiles ?? {})) {
    let segments: string[];
    try {
      segments = fileNameSegments(name);
    } catch (error) {
      throw new Error(`inputFiles: ${(error as Error).message}`);
    }
    const path = join(context.workingDirectory, ...segments);
    await mkdir(dirname(path), { recursive: true });
    if (STORAGE_URI.test(value.trim())) {
      const source = await storageOf(context, 'inputFiles with a kestra:/// URI').open(value.trim());
      await pipeline(source, createWriteStream(path, { mode: 0o600 }), { signal: context.signal });
    } else {
      await writeFile(path, value, { mode: 0o600 });
    }
    // A script running as a task user of its own (docs/task-isolation.md) reads its files as their owner.
    if (owner !== undefined) {
      for (let depth = 1; depth <= segments.length; depth += 1) {
        await chown(join(context.workingDirectory, ...segments.slice(0, depth)), owner.uid, owner.gid);
      }
    }
  }
}

/** `*` within a folder, `**` across folders, `?` one character; everything else literal. */
function globPattern(glob: string): RegExp {
  let pattern = '';
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index] ?? '';
    if (char === '*' && glob[index + 1] === '*') {
      const slash = glob[index + 2] === '/';
      pattern += slash ? '(?:.*/)?' : '.*';
      index += slash ? 2 : 1;
    } else if (char === '*') pattern += '[^/]*';
    else if (char === '?') pattern += '[^/]';
    else pattern += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

/** The working directory's regular files (never following a link), as `/`-separated relative names. */
async function filesUnder(root: string, folder: string, found: string[]): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) await filesUnder(root, path, found);
    else if (entry.isFile()) found.push(relative(root, path).split(sep).join('/'));
  }
}

/**
 * Kestra's `outputFiles`: every regular file of the working directory matching one of
 * the names or globs is streamed to internal storage; the output maps each file's
 * relative name to its URI. A symbolic link is never followed, so a script cannot make
 * the worker upload a file from outside its working directory.
 */
export async function uploadOutputFiles(task: ScriptFiles, context: TaskKindContext): Promise<JsonObject | undefined> {
  const globs = task.outputFiles ?? [];
  if (globs.length === 0) return undefined;
  const files = storageOf(context, 'outputFiles');
  const patterns = globs.map(globPattern);
  const names: string[] = [];
  await filesUnder(context.workingDirectory, context.workingDirectory, names);
  const uploaded: JsonObject = {};
  for (const name of names.sort()) {
    if (!patterns.some((pattern) => pattern.test(name))) continue;
    const path = join(context.workingDirectory, ...name.split('/'));
    if (!(await lstat(path)).isFile()) continue;
    const stored = await files.upload(name, createReadStream(path));
    uploaded[name] = stored.uri;
  }
  return uploaded;
}
