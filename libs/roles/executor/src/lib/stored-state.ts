import type { StoredJson } from '@lanner/model';
import { readStoredState, type Execution } from '@lanner/state-machine';

/**
 * The execution's stored state is of a format newer than this executor reads:
 * a newer Lanner wrote it (mid rolling upgrade). The execution is left as it is
 * and its event is retried until this process is upgraded, as a queue message
 * of a newer schema version is.
 */
export class NewerStoredState extends Error {
  constructor(
    readonly executionId: string,
    readonly formatVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      `execution ${executionId}: its stored state has format version ${formatVersion}, but this executor reads up to ` +
        `version ${supportedVersion}; a newer Lanner wrote it: upgrade this process`,
    );
    this.name = 'NewerStoredState';
  }
}

/** The execution's stored state does not match its format: each problem names its JSON path (never a value). */
export class UnreadableStoredState extends Error {
  constructor(
    readonly executionId: string,
    readonly problems: readonly { readonly path: string; readonly message: string }[],
  ) {
    super(
      `execution ${executionId}: its stored state is unreadable: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    );
    this.name = 'UnreadableStoredState';
  }
}

/**
 * Executions read from a document that held their task runs (formats 1 and 2):
 * their task runs have no value of their own stored yet, so the first write
 * after the read stores every one of them, not only those that changed.
 */
const readWhole = new WeakSet<Execution>();

/** True when `execution`, as read, has task runs whose own value is not stored yet (see `readWhole`). */
export function storesEveryTaskRun(execution: Execution): boolean {
  return readWhole.has(execution);
}

/** The execution stored in `stateData`, migrated from an older format when it is one. */
export function loadStoredExecution(executionId: string, stateData: StoredJson): Execution {
  const reading = readStoredState(stateData);
  if (reading.ok) {
    if (reading.formatVersion < 3) readWhole.add(reading.execution);
    return reading.execution;
  }
  if (reading.reason === 'newer') throw new NewerStoredState(executionId, reading.formatVersion, reading.supportedVersion);
  throw new UnreadableStoredState(executionId, reading.problems);
}
