// The executor's stored state (executions.state_data): the execution as plain
// data, with the format version it was written in. Rows written before the
// version field existed are format 1; a row of an older format is migrated one
// version at a time up to the current one, a row of a newer format is refused
// (a newer executor wrote it), and a row that fails its format's schema is
// reported with the JSON path of each problem. docs/STORED-STATE.md tells how
// to add a version. From format 3 the task runs are not in the document: each
// one is stored beside it (`toStoredTaskRun`, in its task_runs row), so a write
// carries only the task runs that changed, and the store gives them back under
// `taskRuns` when it reads the document.
import { z } from 'zod';
import { type ExecutionData, executionFromData } from './execution';
import { EXECUTION_TRANSITIONS, TASK_RUN_TRANSITIONS, type ExecutionState, type TaskRunState } from './states';
import type { Execution, TaskRun } from './types';

/** The format this code writes. */
export const STORED_STATE_FORMAT_VERSION = 3;

/** The stored state as this code writes it: the execution without its task runs, which are stored one by one. */
export type StoredExecutionState = Omit<ExecutionData, 'taskRuns'> & {
  readonly formatVersion: typeof STORED_STATE_FORMAT_VERSION;
};

/** The stored state as the store gives it back: the document with its task runs under `taskRuns`. */
export type StoredExecutionStateRead = ExecutionData & { readonly formatVersion: typeof STORED_STATE_FORMAT_VERSION };

export interface StoredStateProblem {
  /** JSON path in the stored document, as `taskRuns[3].attempts[0].state`; `(state)` for the whole. */
  readonly path: string;
  readonly message: string;
}

export type StoredStateReading =
  | { readonly ok: true; readonly execution: Execution; readonly formatVersion: number }
  | { readonly ok: false; readonly reason: 'newer'; readonly formatVersion: number; readonly supportedVersion: number }
  | { readonly ok: false; readonly reason: 'invalid'; readonly problems: readonly StoredStateProblem[] };

// ---- The shapes ------------------------------------------------------------------
// Objects are loose: a field a schema does not name is kept as it is, never dropped.

const executionStates = Object.keys(EXECUTION_TRANSITIONS) as [ExecutionState, ...ExecutionState[]];
const taskRunStates = Object.keys(TASK_RUN_TRANSITIONS) as [TaskRunState, ...TaskRunState[]];

const millis = z.number();
const jsonObject = z.record(z.string(), z.json());
const stage = z.enum(['main', 'errors', 'finally']);
const outcome = z.enum(['SUCCESS', 'WARNING', 'FAILED', 'KILLED']);
const dagTaskState = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]);

const progress = z.looseObject({
  stage,
  round: z.number().int(),
  nextLane: z.number().int(),
  running: z.number().int(),
  failed: z.number().int(),
  warned: z.number().int(),
  killed: z.number().int(),
  mainOutcome: outcome.optional(),
  mainLanes: z.number().int().optional(),
  mainDag: z.array(dagTaskState).optional(),
  branch: z.string().optional(),
  values: z.array(z.string()).optional(),
  dag: z.array(dagTaskState).optional(),
  iteration: z.number().int().optional(),
  startedAt: millis.optional(),
  waiting: z.boolean().optional(),
});

const attempt = z.looseObject({
  attempt: z.number().int(),
  state: z.enum(['SUBMITTED', 'RUNNING', 'SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'RESUBMITTED', 'CANCELLED']),
  submittedAt: millis,
  startedAt: millis.optional(),
  endedAt: millis.optional(),
  workerId: z.string().optional(),
  workerQueueId: z.string().optional(),
  outputs: jsonObject.optional(),
  error: z.string().optional(),
});

const selector = z.looseObject({
  tags: z.array(z.string()),
  match: z.enum(['ALL', 'ANY']),
  fallback: z.enum(['FAIL', 'WAIT', 'CANCEL', 'IGNORE']).optional(),
});

const taskRun = z.looseObject({
  id: z.string(),
  executionId: z.string(),
  taskId: z.string(),
  parentTaskRunId: z.string().optional(),
  seq: z.number().int(),
  stage,
  lane: z.number().int(),
  position: z.number().int(),
  value: z.string().optional(),
  forEachValues: z.array(z.string()).optional(),
  iteration: z.number().int().optional(),
  state: z.enum(taskRunStates),
  histories: z.array(z.looseObject({ state: z.enum(taskRunStates), at: millis })),
  attempts: z.array(attempt),
  outputs: jsonObject.optional(),
  error: z.string().optional(),
  workerQueueId: z.string().optional(),
  selector: selector.optional(),
  waitingReason: z.string().optional(),
  dispatchReason: z.string().optional(),
  progress: progress.optional(),
  subflowExecutionId: z.string().optional(),
});

/** Format 1: the execution as `executionToData` wrote it, with no version field. */
const formatV1 = z.looseObject({
  id: z.string(),
  tenant: z.string(),
  namespace: z.string(),
  flowId: z.string(),
  flowRevision: z.number().int(),
  state: z.enum(executionStates),
  histories: z.array(z.looseObject({ state: z.enum(executionStates), at: millis })),
  inputs: jsonObject,
  outputs: jsonObject.optional(),
  labels: z.record(z.string(), z.string()),
  variables: z.record(z.string(), z.json()),
  parent: z.looseObject({ executionId: z.string(), taskRunId: z.string(), namespace: z.string(), flowId: z.string() }).optional(),
  retryAttempt: z.number().int(),
  originalExecutionId: z.string().optional(),
  replayOf: z.looseObject({ executionId: z.string(), taskRunId: z.string().optional() }).optional(),
  error: z.string().optional(),
  version: z.number().int(),
  root: progress,
  nextSeq: z.number().int(),
  halt: z
    .looseObject({
      reason: z.enum(['kill', 'retry', 'sla']),
      retryAt: millis.optional(),
      slaOutcome: z.enum(['FAILED', 'CANCELLED']).optional(),
    })
    .optional(),
  taskRuns: z.array(taskRun),
});

/** Format 2: format 1 and the version it is written in. */
const formatV2 = formatV1.extend({ formatVersion: z.literal(2) });

/**
 * Format 3: format 2 without `taskRuns` in the stored document; each task run is
 * stored on its own (`toStoredTaskRun`) and read back into `taskRuns`, in any order.
 */
const formatV3 = formatV1.extend({ formatVersion: z.literal(3) });

type FormatV1 = z.infer<typeof formatV1>;
type FormatV2 = z.infer<typeof formatV2>;
type FormatV3 = z.infer<typeof formatV3>;

/**
 * One schema per format, and the step from each format to the next. A new
 * format adds its schema (kept as it is once released), the step to it from
 * the previous one, and moves STORED_STATE_FORMAT_VERSION.
 */
const FORMATS: { readonly [version: number]: z.ZodType } = { 1: formatV1, 2: formatV2, 3: formatV3 };
const MIGRATIONS: { readonly [from: number]: (state: never) => unknown } = {
  1: (state: FormatV1): FormatV2 => ({ ...state, formatVersion: 2 }),
  // Read, the two have the same shape: format 3's task runs come back under `taskRuns`.
  2: (state: FormatV2): FormatV3 => ({ ...state, formatVersion: 3 }),
};

// ---- Writing and reading ---------------------------------------------------------

/**
 * What the executor stores for `execution`, but its task runs (`toStoredTaskRun`
 * each): its size does not grow with the task runs the execution has.
 */
export function toStoredState(execution: Execution): StoredExecutionState {
  const { taskRuns: _taskRuns, liveTaskRuns: _live, taskOutputs: _outputs, ...rest } = execution;
  return { formatVersion: STORED_STATE_FORMAT_VERSION, ...rest };
}

/** What the executor stores for one task run of the execution (beside `toStoredState`). */
export function toStoredTaskRun(run: TaskRun): TaskRun {
  return run;
}

/** The stored document with its task runs, as a store reads it back (and as `readStoredState` takes it). */
export function withStoredTaskRuns(state: StoredExecutionState, taskRuns: readonly TaskRun[]): StoredExecutionStateRead {
  return { ...state, taskRuns };
}

/** Reads a stored state of any format this code knows; never throws. */
export function readStoredState(stored: unknown): StoredStateReading {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    return { ok: false, reason: 'invalid', problems: [{ path: '(state)', message: 'Expected a JSON object' }] };
  }
  const declared = (stored as { formatVersion?: unknown }).formatVersion;
  // Format 1 had no version field: a row without one is format 1.
  const version = declared === undefined ? 1 : declared;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return {
      ok: false,
      reason: 'invalid',
      problems: [{ path: 'formatVersion', message: 'Expected a format version, a whole number from 1' }],
    };
  }
  if (version > STORED_STATE_FORMAT_VERSION) {
    return { ok: false, reason: 'newer', formatVersion: version, supportedVersion: STORED_STATE_FORMAT_VERSION };
  }
  const parsed = (FORMATS[version] as z.ZodType).safeParse(stored);
  if (!parsed.success) return { ok: false, reason: 'invalid', problems: parsed.error.issues.map(toProblem) };
  let state: unknown = parsed.data;
  for (let from = version; from < STORED_STATE_FORMAT_VERSION; from += 1) {
    state = (MIGRATIONS[from] as (state: unknown) => unknown)(state);
  }
  const { formatVersion: _version, ...data } = state as FormatV3;
  return { ok: true, execution: executionFromData(data satisfies ExecutionData), formatVersion: version };
}

function toProblem(issue: z.core.$ZodIssue): StoredStateProblem {
  const path = issue.path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    const name = String(segment);
    return text === '' ? name : `${text}.${name}`;
  }, '');
  return { path: path === '' ? '(state)' : path, message: issue.message };
}
