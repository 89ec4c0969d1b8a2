/**
 * Internal storage URIs, shaped as Kestra shapes them:
 *   kestra:///<namespace as folders>/<flow>/executions/<execution>/tasks/<task>/<taskrun>/<file>
 *   kestra:///<namespace as folders>/<flow>/executions/<execution>/inputs/<input>/<file>
 * A namespace `company.team` is the two folders `company/team`. A URI names a file
 * inside one tenant: the tenant is never part of it, every storage call takes it apart.
 */

export const STORAGE_SCHEME = 'kestra:';
const URI_PREFIX = 'kestra:///';

/** A bad URI or name: the message says what is wrong, never where the file would live. */
export class StorageUriError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageUriError';
  }
}

/** A checked URI: its decoded path segments, the first being the namespace's first part. */
export interface StorageUri {
  readonly uri: string;
  readonly segments: readonly string[];
}

const TENANT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const NAMESPACE = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
// Lanner's task run ids join their parents' with `:` and mark lanes and loops with `@` and `~`.
const ID = /^[A-Za-z0-9][A-Za-z0-9._:@~-]{0,254}$/;
// Control characters, a backslash, or a slash that came from an escape (`%2F`): each could
// make one segment into several on a file system.
// eslint-disable-next-line no-control-regex
const UNSAFE_SEGMENT = /[\u0000-\u001f\u007f\\/]/;
const MAX_SEGMENT_BYTES = 255;
const MAX_URI_LENGTH = 2048;

export function checkTenant(tenant: string): string {
  if (!TENANT.test(tenant)) throw new StorageUriError(`tenant '${printable(tenant)}' is not a valid tenant id`);
  return tenant;
}

function checkSegment(segment: string, where: string): string {
  if (segment.length === 0) throw new StorageUriError(`${where}: an empty path segment`);
  if (segment === '.' || segment === '..') throw new StorageUriError(`${where}: '${segment}' is not allowed as a path segment`);
  if (UNSAFE_SEGMENT.test(segment))
    throw new StorageUriError(`${where}: a path segment holds a control character, a slash or a backslash`);
  if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES)
    throw new StorageUriError(`${where}: a path segment is over ${MAX_SEGMENT_BYTES} bytes`);
  return segment;
}

function checkId(value: string, what: string): string {
  if (!ID.test(value)) throw new StorageUriError(`${what} '${printable(value)}' is not a valid id`);
  return value;
}

/** A relative file name (`out.csv`, `reports/2024.csv`) as segments; no absolute path, no `..`. */
export function fileNameSegments(name: string): string[] {
  if (name.startsWith('/')) throw new StorageUriError(`file name '${printable(name)}' must be relative`);
  return name.split('/').map((segment) => checkSegment(segment, `file name '${printable(name)}'`));
}

function build(segments: readonly string[]): StorageUri {
  const uri = URI_PREFIX + segments.map(encodeSegment).join('/');
  if (uri.length > MAX_URI_LENGTH) throw new StorageUriError(`a storage URI is over ${MAX_URI_LENGTH} characters`);
  return { uri, segments };
}

/** Escapes what a path segment cannot hold; `:` and `@` are path characters (RFC 3986 pchar) and stay as written. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%3A/g, ':').replace(/%40/g, '@');
}

export interface ExecutionScope {
  readonly namespace: string;
  readonly flowId: string;
  readonly executionId: string;
}

function executionSegments(scope: ExecutionScope): string[] {
  if (!NAMESPACE.test(scope.namespace))
    throw new StorageUriError(`namespace '${printable(scope.namespace)}' is not a valid namespace`);
  return [
    ...scope.namespace.split('.'),
    checkId(scope.flowId, 'flow id'),
    'executions',
    checkId(scope.executionId, 'execution id'),
  ];
}

/** The prefix every file of one execution lives under (tasks' files and inputs alike). */
export function executionPrefix(scope: ExecutionScope): StorageUri {
  return build(executionSegments(scope));
}

export interface TaskRunScope extends ExecutionScope {
  readonly taskId: string;
  readonly taskRunId: string;
}

/** Where a task run's file `name` goes (`out.csv`, or a relative path). */
export function taskFileUri(scope: TaskRunScope, name: string): StorageUri {
  return build([
    ...executionSegments(scope),
    'tasks',
    checkId(scope.taskId, 'task id'),
    checkId(scope.taskRunId, 'task run id'),
    ...fileNameSegments(name),
  ]);
}

/** Where the file uploaded for the FILE input `input` goes. */
export function inputFileUri(scope: ExecutionScope, input: string, fileName: string): StorageUri {
  return build([...executionSegments(scope), 'inputs', checkId(input, 'input id'), ...fileNameSegments(fileName)]);
}

/** The folder segment under a namespace that holds its namespace files (Kestra's `_files`). */
export const NAMESPACE_FILES_FOLDER = '_files';

function namespaceSegments(namespace: string): string[] {
  if (!NAMESPACE.test(namespace)) throw new StorageUriError(`namespace '${printable(namespace)}' is not a valid namespace`);
  return namespace.split('.');
}

/** Where the namespace's files live: `kestra:///<namespace as folders>/_files`. */
export function namespaceFilesPrefix(namespace: string): StorageUri {
  return build([...namespaceSegments(namespace), NAMESPACE_FILES_FOLDER]);
}

/** The namespace file at `path` (relative, folders allowed): `kestra:///<namespace>/_files/<path>`. */
export function namespaceFileUri(namespace: string, path: string): StorageUri {
  return build([...namespaceSegments(namespace), NAMESPACE_FILES_FOLDER, ...fileNameSegments(path)]);
}

/** A namespace file's path relative to the namespace's `_files` folder. */
export function namespaceFilePath(namespace: string, uri: StorageUri): string {
  return uri.segments.slice(namespaceFilesPrefix(namespace).segments.length).join('/');
}

/** Parses and checks `kestra:///...`; a value that is not one names what is wrong. */
export function parseStorageUri(value: string): StorageUri {
  if (typeof value !== 'string' || !value.startsWith(URI_PREFIX)) {
    throw new StorageUriError(`'${printable(String(value))}' is not an internal storage URI (kestra:///...)`);
  }
  if (value.length > MAX_URI_LENGTH) throw new StorageUriError(`a storage URI is over ${MAX_URI_LENGTH} characters`);
  const path = value.slice(URI_PREFIX.length).split(/[?#]/)[0] ?? '';
  if (value.length !== URI_PREFIX.length + path.length) throw new StorageUriError('a storage URI has no query or fragment');
  const segments = path.split('/').map((raw) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      throw new StorageUriError(`'${printable(value)}' holds a malformed escape`);
    }
    return checkSegment(decoded, `'${printable(value)}'`);
  });
  return build(segments);
}

/** True when `uri` names a file at or below `prefix` (segment by segment, never a string prefix). */
export function isUnder(uri: StorageUri, prefix: StorageUri): boolean {
  if (uri.segments.length <= prefix.segments.length) return false;
  return prefix.segments.every((segment, index) => uri.segments[index] === segment);
}

/** The URI's last segment: the file name as a user gave it. */
export function fileNameOf(uri: StorageUri): string {
  return uri.segments[uri.segments.length - 1] ?? '';
}

function printable(value: string): string {
  // eslint-disable-next-line no-control-regex
  const shown = value.replace(/[\u0000-\u001f\u007f]/g, '?');
  return shown.length > 120 ? `${shown.slice(0, 120)}...` : shown;
}
