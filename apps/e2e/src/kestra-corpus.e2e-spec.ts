// The Kestra-compatibility corpus: every tests/flows/kestra/<area>/<name>.yaml is a flow
// in Kestra's format whose leading comments state how Kestra would end it (format:
// tests/flows/kestra/README.md). Each file is one test, named after the file: the flow is
// deployed through POST /flows, run through POST /executions (resumed when it pauses and
// the file says how), and its end is read back through GET /executions/{id}.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type CorpusHeader, parseCorpusHeader, valueAtPath } from '@lanner/testing';
import {
  describeExecution,
  type Execution,
  outputsOf,
  scenario,
  stateOf,
  type TaskRun,
  TERMINAL_STATES,
  UnexpectedAnswer,
} from './harness/scenario';

const REPOSITORY = resolve(__dirname, '../../..');
const CORPUS = join(REPOSITORY, 'tests/flows/kestra');
const WAIT_MS = 60_000;
/** The terminal states, and RETRIED: a CREATE_NEW_EXECUTION retry ends an execution there. */
const ENDED: readonly string[] = [...TERMINAL_STATES, 'RETRIED'];

function corpusFiles(folder: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(folder).sort();
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return corpusFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

interface Problem {
  readonly path?: string;
  readonly message?: string;
}

interface ProblemBody {
  readonly detail?: string;
  readonly errors?: readonly Problem[];
}

interface StateHistory {
  readonly state: string;
}

function pausesOf(execution: Execution): number {
  const state = execution.state as { histories?: readonly StateHistory[] } | string;
  if (typeof state === 'string') return state === 'PAUSED' ? 1 : 0;
  return (state.histories ?? []).filter((change) => change.state === 'PAUSED').length;
}

function labelsOf(execution: Execution): Record<string, string> {
  const labels = (execution as { labels?: unknown }).labels;
  if (Array.isArray(labels)) {
    // Kestra's shape: a list of { key, value }.
    return Object.fromEntries(
      labels.map((label: { key?: unknown; value?: unknown }) => [String(label.key), String(label.value)]),
    );
  }
  return labels !== null && typeof labels === 'object' ? (labels as Record<string, string>) : {};
}

/** The task runs of `taskId` in creation order (their first state change). */
function taskRunsInOrder(execution: Execution, taskId: string): TaskRun[] {
  const created = (run: TaskRun): string => {
    const state = run.state as { histories?: readonly { date?: string }[] } | string;
    return typeof state === 'string' ? '' : (state.histories?.[0]?.date ?? '');
  };
  return (execution.taskRunList ?? [])
    .map((run, index) => ({ run, index }))
    .filter(({ run }) => run.taskId === taskId)
    .sort((a, b) => created(a.run).localeCompare(created(b.run)) || a.index - b.index)
    .map(({ run }) => run);
}

function isEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => isEqualJson(item, b[i]));
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  return (
    aKeys.length === Object.keys(b).length &&
    aKeys.every((key) => Object.hasOwn(bRecord, key) && isEqualJson((a as Record<string, unknown>)[key], bRecord[key]))
  );
}

/** What the execution got wrong against the header, one line each (empty: all as expected). */
function mismatches(header: CorpusHeader, execution: Execution): string[] {
  const found: string[] = [];
  const end = header.end;
  if (end !== undefined) {
    if (stateOf(execution) !== end.state) found.push(`state: expected ${end.state}, got ${stateOf(execution)}`);
    const taskRuns = execution.taskRunList?.length ?? 0;
    if (taskRuns !== end.taskRuns) found.push(`taskRuns: expected ${end.taskRuns}, got ${taskRuns}`);
  }
  for (const expected of header.taskRunStates) {
    const states = taskRunsInOrder(execution, expected.taskId).map((run) => stateOf(run));
    if (states.join(',') !== expected.states.join(',')) {
      found.push(`task runs of '${expected.taskId}': expected ${expected.states.join(',')}, got ${states.join(',') || 'none'}`);
    }
  }
  for (const expected of header.attempts) {
    const last = taskRunsInOrder(execution, expected.taskId).at(-1);
    const attempts = last?.attempts?.length;
    if (attempts !== expected.attempts) {
      found.push(`attempts of '${expected.taskId}': expected ${expected.attempts}, got ${last ? attempts : 'no task run'}`);
    }
  }
  for (const expected of header.outputs) {
    const last = taskRunsInOrder(execution, expected.taskId).at(-1);
    if (last === undefined) {
      found.push(`output ${expected.text}: no task run of '${expected.taskId}'`);
      continue;
    }
    const outputs = outputsOf(last);
    const actual = valueAtPath(outputs, expected.path);
    if (!actual.found) {
      found.push(`output ${expected.text}: no such output; outputs are ${JSON.stringify(outputs)}`);
    } else if (!isEqualJson(actual.value, expected.value)) {
      found.push(`output ${expected.text}: got ${JSON.stringify(actual.value)}`);
    }
  }
  const labels = labelsOf(execution);
  for (const expected of header.labels) {
    if (labels[expected.key] !== expected.value) {
      found.push(`label ${expected.key}: expected '${expected.value}', got ${JSON.stringify(labels[expected.key] ?? null)}`);
    }
  }
  return found;
}

describe('the Kestra-compatibility corpus (tests/flows/kestra)', () => {
  const { lanner } = scenario();
  const files = corpusFiles(CORPUS);
  /** Flow files already deployed in this run (a required child may be a corpus file of its own). */
  const deployed = new Map<string, { namespace: string; id: string }>();

  async function deploy(path: string): Promise<{ namespace: string; id: string }> {
    const known = deployed.get(path);
    if (known) return known;
    const answer = await lanner.request<{ namespace?: string; id?: string }>('POST', '/flows', {
      yaml: readFileSync(path, 'utf8'),
    });
    if (answer.status !== 201 || typeof answer.body?.id !== 'string' || typeof answer.body.namespace !== 'string') {
      throw new UnexpectedAnswer(`deploying ${relative(REPOSITORY, path)}`, answer);
    }
    const flow = { namespace: answer.body.namespace, id: answer.body.id };
    deployed.set(path, flow);
    return flow;
  }

  async function runToTheEnd(id: string, header: CorpusHeader): Promise<Execution> {
    const resumes = [...header.resumes];
    let pausesSeen = 0;
    for (;;) {
      const execution = await lanner.waitFor(
        id,
        (seen) =>
          ENDED.includes(stateOf(seen)) ||
          // Without a resume left, a pause that resumes (or times out) by itself is waited through.
          (resumes.length > 0 && stateOf(seen) === 'PAUSED' && pausesOf(seen) > pausesSeen),
        resumes.length > 0 ? 'PAUSED (to resume) or a terminal state' : 'a terminal state',
        WAIT_MS,
      );
      if (stateOf(execution) !== 'PAUSED' || resumes.length === 0) return execution;
      pausesSeen = pausesOf(execution);
      const inputs = resumes.shift();
      const answer = await lanner.resume(id, inputs);
      if (answer.status !== 204) throw new UnexpectedAnswer(`resuming ${id} with ${JSON.stringify(inputs)}`, answer);
    }
  }

  /**
   * The last execution of a CREATE_NEW_EXECUTION retry chain: while the one in hand ends RETRIED,
   * the execution of the same flow whose `originalId` is the first one's and that was not seen yet.
   */
  async function lastOfRetryChain(
    first: Execution,
    flow: { namespace: string; id: string },
    header: CorpusHeader,
  ): Promise<Execution> {
    const seen = new Set<string>([first.id]);
    let current = first;
    while (stateOf(current) === 'RETRIED') {
      const deadline = Date.now() + WAIT_MS;
      let next: Execution | undefined;
      while (next === undefined) {
        const query = new URLSearchParams({ namespace: flow.namespace, flowId: flow.id, size: '50' });
        const answer = await lanner.request<{ results?: (Execution & { originalId?: string })[] }>(
          'GET',
          `/executions/search?${query.toString()}`,
        );
        if (answer.status !== 200) throw new UnexpectedAnswer('searching the retry executions', answer);
        next = (answer.body.results ?? []).find((execution) => execution.originalId === first.id && !seen.has(execution.id));
        if (next === undefined) {
          if (Date.now() > deadline) throw new Error(`no retry execution of ${first.id} appeared within ${WAIT_MS} ms`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      seen.add(next.id);
      current = await runToTheEnd(next.id, header);
    }
    return current;
  }

  it('holds flows', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files.map((path) => [relative(CORPUS, path), path]))(
    '%s',
    async (_name, path) => {
      const source = readFileSync(path, 'utf8');
      const header = parseCorpusHeader(source, relative(REPOSITORY, path));
      for (const required of header.requires) await deploy(resolve(dirname(path), required));

      if (header.invalid !== undefined) {
        const answer = await lanner.request<ProblemBody>('POST', '/flows', { yaml: source });
        if (answer.status !== 422) throw new UnexpectedAnswer(`expected a 422 refusing the flow`, answer);
        // The refusal says what is wrong and where: an entry with the YAML path of the offending
        // property, whose `<path>: <message>` contains the expected text.
        const naming = (answer.body.errors ?? []).filter(
          (problem) =>
            typeof problem.path === 'string' &&
            problem.path !== '' &&
            `${problem.path}: ${problem.message ?? ''}`.includes(header.invalid ?? ''),
        );
        if (naming.length === 0) {
          throw new Error(`no refusal entry with a YAML path says '${header.invalid}': ${answer.text.slice(0, 2000)}`);
        }
        return;
      }

      const flow = await deploy(path);
      const started = await lanner.execute(flow.namespace, flow.id, header.inputs as Record<string, unknown> | undefined);
      const first = await runToTheEnd(started.id, header);
      const ended = header.followRetries ? await lastOfRetryChain(first, flow, header) : first;
      const wrong = mismatches(header, ended);
      if (wrong.length > 0) {
        throw new Error(`${wrong.join('\n')}\n\n${describeExecution(ended)}`);
      }
    },
    WAIT_MS * 2 + 30_000,
  );
});
