// The header of a Kestra-compatibility corpus flow (tests/flows/kestra/<area>/<name>.yaml):
// the leading comment lines that state how Kestra would end the flow. The e2e corpus
// runner reads them; the format is described in tests/flows/kestra/README.md.

/** The final state and the number of task runs an execution ends with. */
export interface ExpectedEnd {
  readonly state: string;
  readonly taskRuns: number;
}

export interface ExpectedTaskRunStates {
  readonly taskId: string;
  /** States of the task runs of that task id, in creation order. */
  readonly states: readonly string[];
}

export interface ExpectedAttempts {
  readonly taskId: string;
  readonly attempts: number;
}

export interface ExpectedOutput {
  readonly taskId: string;
  /** Keys (and list indexes) under the task run's outputs. */
  readonly path: readonly string[];
  readonly value: unknown;
  /** As written, for messages. */
  readonly text: string;
}

export interface ExpectedLabel {
  readonly key: string;
  readonly value: string;
}

export interface CorpusHeader {
  /** What the execution ends with; absent when the flow is expected to be refused. */
  readonly end?: ExpectedEnd;
  /** The deploy is refused with a 422 whose message contains this. */
  readonly invalid?: string;
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** Inputs of each resume, in order, for each time the execution is PAUSED. */
  readonly resumes: readonly Readonly<Record<string, unknown>>[];
  /** Flow files (relative to this one) to deploy first. */
  readonly requires: readonly string[];
  readonly taskRunStates: readonly ExpectedTaskRunStates[];
  readonly attempts: readonly ExpectedAttempts[];
  readonly outputs: readonly ExpectedOutput[];
  readonly labels: readonly ExpectedLabel[];
  /**
   * `# follow: retries`: the expectations are of the last execution of its CREATE_NEW_EXECUTION
   * retry chain (the started one ends RETRIED; the new ones carry its id as `originalId`).
   */
  readonly followRetries: boolean;
}

/** A header that does not follow the format; the message names the file and line. */
export class CorpusHeaderError extends Error {}

const STATES = new Set([
  'CREATED',
  'RUNNING',
  'PAUSED',
  'SUCCESS',
  'WARNING',
  'FAILED',
  'KILLED',
  'CANCELLED',
  'SKIPPED',
  'RETRIED',
  'RESTARTED',
  'QUEUED',
  'KILLING',
  'RETRYING',
  'SUBMITTED',
]);

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

interface Mutable {
  end?: ExpectedEnd;
  invalid?: string;
  inputs?: Record<string, unknown>;
  resumes: Record<string, unknown>[];
  requires: string[];
  taskRunStates: ExpectedTaskRunStates[];
  attempts: ExpectedAttempts[];
  outputs: ExpectedOutput[];
  labels: ExpectedLabel[];
  followRetries: boolean;
}

type LineParser = (value: string, header: Mutable, fail: (why: string) => never) => void;

function jsonOf(text: string, fail: (why: string) => never): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return fail(`not JSON (${error instanceof Error ? error.message : String(error)}): ${text}`);
  }
}

function objectOf(text: string, fail: (why: string) => never): Record<string, unknown> {
  const value = jsonOf(text, fail);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(`expected a JSON object, got: ${text}`);
  return value as Record<string, unknown>;
}

function stateOf(text: string, fail: (why: string) => never): string {
  if (!STATES.has(text)) fail(`unknown state '${text}' (one of ${[...STATES].join(', ')})`);
  return text;
}

function taskIdOf(text: string, fail: (why: string) => never): string {
  if (!TASK_ID.test(text)) fail(`'${text}' is not a task id`);
  return text;
}

const KEYS: Record<string, LineParser> = {
  expect(value, header, fail) {
    if (header.end) fail('a second `expect:` line');
    const fields = new Map<string, string>();
    for (const part of value.split(/\s+/).filter((one) => one !== '')) {
      const match = /^([A-Za-z]+)=(.+)$/.exec(part);
      if (!match) return fail(`'${part}' is not name=value`);
      if (match[1] !== 'state' && match[1] !== 'taskRuns') fail(`unknown field '${match[1]}' (state, taskRuns)`);
      if (fields.has(match[1])) fail(`'${match[1]}' given twice`);
      fields.set(match[1], match[2]);
    }
    const state = fields.get('state');
    const taskRuns = fields.get('taskRuns');
    if (state === undefined || taskRuns === undefined) return fail('`expect:` needs state=<STATE> and taskRuns=<N>');
    if (!/^\d+$/.test(taskRuns)) fail(`taskRuns=${taskRuns} is not a whole number`);
    header.end = { state: stateOf(state, fail), taskRuns: Number(taskRuns) };
  },
  'expect-invalid'(value, header, fail) {
    if (header.invalid !== undefined) fail('a second `expect-invalid:` line');
    if (value === '') fail('`expect-invalid:` needs the text the refusal contains');
    header.invalid = value;
  },
  inputs(value, header, fail) {
    if (header.inputs) fail('a second `inputs:` line');
    header.inputs = objectOf(value, fail);
  },
  resume(value, header, fail) {
    header.resumes.push(value === '' ? {} : objectOf(value, fail));
  },
  requires(value, header, fail) {
    if (!/\.ya?ml$/.test(value)) fail(`'${value}' is not a flow file (.yaml)`);
    header.requires.push(value);
  },
  'expect-taskrun'(value, header, fail) {
    const match = /^(\S+)\s+(\S+)$/.exec(value);
    if (!match) return fail('expected `<taskId> <STATE>[,<STATE>...]`');
    header.taskRunStates.push({
      taskId: taskIdOf(match[1], fail),
      states: match[2].split(',').map((state) => stateOf(state, fail)),
    });
  },
  'expect-attempts'(value, header, fail) {
    const match = /^(\S+)\s+(\d+)$/.exec(value);
    if (!match) return fail('expected `<taskId> <N>`');
    header.attempts.push({ taskId: taskIdOf(match[1], fail), attempts: Number(match[2]) });
  },
  'expect-output'(value, header, fail) {
    const match = /^([^\s=]+)\s*=\s*(.+)$/.exec(value);
    if (!match) return fail('expected `<taskId>.<path> = <JSON>`');
    const [taskId, ...path] = match[1].split('.');
    if (path.length === 0 || path.some((key) => key === '')) fail(`'${match[1]}' is not <taskId>.<dot.path>`);
    header.outputs.push({ taskId: taskIdOf(taskId, fail), path, value: jsonOf(match[2], fail), text: value });
  },
  follow(value, header, fail) {
    if (value !== 'retries') fail(`'${value}' cannot be followed (follow: retries)`);
    if (header.followRetries) fail('a second `follow:` line');
    header.followRetries = true;
  },
  'expect-label'(value, header, fail) {
    const match = /^([^\s=]+)\s*=\s*(.*)$/.exec(value);
    if (!match) return fail('expected `<key> = <value>`');
    header.labels.push({ key: match[1], value: match[2] });
  },
};

/**
 * Reads the leading comment lines of a corpus flow. A comment `# <key>: <value>` with a
 * key of the format is an expectation; any other leading comment is prose. Fails (naming
 * `file` and the line) on an unknown `expect*` key, a malformed value, or a file with
 * neither `expect:` nor `expect-invalid:`.
 */
export function parseCorpusHeader(source: string, file: string): CorpusHeader {
  const header: Mutable = {
    resumes: [],
    requires: [],
    taskRunStates: [],
    attempts: [],
    outputs: [],
    labels: [],
    followRetries: false,
  };
  const lines = source.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].trim();
    if (line === '') continue;
    if (!line.startsWith('#')) break;
    const fail = (why: string): never => {
      throw new CorpusHeaderError(`${file}:${index + 1}: ${why}`);
    };
    const match = /^#\s*([A-Za-z][A-Za-z-]*):(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1];
    const parse = KEYS[key];
    if (parse === undefined) {
      if (key.startsWith('expect')) fail(`unknown key '${key}' (known: ${Object.keys(KEYS).join(', ')})`);
      continue;
    }
    parse(match[2].trim(), header, fail);
  }
  if (header.end === undefined && header.invalid === undefined) {
    throw new CorpusHeaderError(`${file}: no \`# expect:\` or \`# expect-invalid:\` line in the leading comments`);
  }
  if (header.end !== undefined && header.invalid !== undefined) {
    throw new CorpusHeaderError(`${file}: both \`# expect:\` and \`# expect-invalid:\`; a flow either runs or is refused`);
  }
  const runExpectations =
    header.taskRunStates.length + header.attempts.length + header.outputs.length + header.labels.length + header.resumes.length;
  if (header.invalid !== undefined && (runExpectations > 0 || header.inputs !== undefined)) {
    throw new CorpusHeaderError(`${file}: a flow expected to be refused cannot also expect how its execution ends`);
  }
  return header;
}

/** The value at `path` under `root` (map keys, or list indexes); `found` false when a step is missing. */
export function valueAtPath(root: unknown, path: readonly string[]): { found: boolean; value?: unknown } {
  let current: unknown = root;
  for (const key of path) {
    if (Array.isArray(current) && /^\d+$/.test(key) && Number(key) < current.length) {
      current = current[Number(key)];
    } else if (current !== null && typeof current === 'object' && !Array.isArray(current) && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
