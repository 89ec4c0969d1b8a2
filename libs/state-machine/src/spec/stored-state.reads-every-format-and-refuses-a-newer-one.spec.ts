// The executor's stored state carries its format version. A row written before
// the version existed is format 1 and still loads; a row of a newer format than
// this code knows is refused, naming both versions; a row that breaks its
// format's schema is refused with the JSON path of each problem. From format 3
// the document holds no task runs: each is stored on its own, and the store
// gives them back under `taskRuns` when it reads the document.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createExecution,
  executionFromData,
  executionToData,
  next,
  readStoredState,
  STORED_STATE_FORMAT_VERSION,
  toStoredState,
  toStoredTaskRun,
  withStoredTaskRuns,
  listTaskRuns,
  type ExecutionData,
  type StoredStateReading,
} from '../index';
import { flow, log } from '../test-support/flows';

// Format 1, as the executor stored it before the format version: a whole execution stopped midway.
const FORMAT_1 = join(__dirname, 'fixtures', 'stored-before-the-flowable-split.json');
const format1 = (): Record<string, unknown> => JSON.parse(readFileSync(FORMAT_1, 'utf8')) as Record<string, unknown>;
const asJson = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

function loaded(reading: StoredStateReading) {
  if (!reading.ok) throw new Error(`not loaded: ${JSON.stringify(reading)}`);
  return reading;
}

function problems(reading: StoredStateReading) {
  if (reading.ok || reading.reason !== 'invalid') throw new Error(`not refused as invalid: ${JSON.stringify(reading)}`);
  return reading.problems;
}

const twoLogs = flow([log('a'), log('b')]);
const started = () =>
  next(twoLogs, createExecution(twoLogs, { id: 'e', tenant: 'main' }, 1_000), { type: 'created' }, 2_000).execution;

describe('the stored state of an execution', () => {
  it('is written with the current format version, without its task runs', () => {
    const execution = started();
    const stored = asJson(toStoredState(execution));
    expect(STORED_STATE_FORMAT_VERSION).toBe(3);
    expect(stored['formatVersion']).toBe(3);
    expect(stored).not.toHaveProperty('taskRuns');
    // The rest is the execution's data, as format 1 had it, but its task runs.
    const { formatVersion: _version, ...rest } = stored;
    const { taskRuns: _runs, ...data } = asJson(executionToData(execution));
    expect(rest).toEqual(data);
  });

  it('does not grow with the task runs the execution has', () => {
    const long = flow(Array.from({ length: 200 }, (_, index) => log(`t${index}`)));
    let execution = next(long, createExecution(long, { id: 'e', tenant: 'main' }, 1_000), { type: 'created' }, 2_000).execution;
    const sizeAtStart = JSON.stringify(toStoredState(execution)).length;
    for (let index = 0; index < 150; index++) {
      const [run] = listTaskRuns(execution).filter((one) => one.state === 'CREATED' || one.state === 'SUBMITTED');
      if (run === undefined) break;
      execution = next(
        long,
        execution,
        { type: 'task-run-result', taskRunId: run.id, attempt: 1, state: 'SUCCESS' },
        3_000 + index,
      ).execution;
    }
    expect(listTaskRuns(execution).filter((one) => one.state === 'SUCCESS').length).toBeGreaterThanOrEqual(100);
    // The document holds the execution's own histories and progress, not its finished task runs.
    expect(JSON.stringify(toStoredState(execution)).length).toBeLessThan(sizeAtStart + 1_000);
  });

  it('reads back what it writes, with its task runs given back beside it, through JSON, to the same execution', () => {
    const execution = started();
    const runs = listTaskRuns(execution).map(toStoredTaskRun).reverse();
    const reading = loaded(readStoredState(asJson(withStoredTaskRuns(toStoredState(execution), runs))));
    expect(reading.formatVersion).toBe(3);
    expect(asJson(executionToData(reading.execution))).toEqual(asJson(executionToData(execution)));
  });

  it('reads a format 2 row (task runs inside) and migrates it to the same execution', () => {
    const execution = started();
    const format2 = { ...asJson(executionToData(execution)), formatVersion: 2 };
    const reading = loaded(readStoredState(format2));
    expect(reading.formatVersion).toBe(2);
    expect(asJson(executionToData(reading.execution))).toEqual(asJson(executionToData(execution)));
  });

  it('reads a format 1 row (no version field) as format 1 and migrates it to the same execution', () => {
    const reading = loaded(readStoredState(format1()));
    expect(reading.formatVersion).toBe(1);
    const direct = executionFromData(format1() as unknown as ExecutionData);
    expect(asJson(executionToData(reading.execution))).toEqual(asJson(executionToData(direct)));
    expect(reading.execution.state).toBe('PAUSED');
    expect(reading.execution.taskRuns.get('e:all:check:hold')?.state).toBe('PAUSED');
    // The migrated execution does not carry the version field into the state machine's value.
    expect(Object.keys(reading.execution)).not.toContain('formatVersion');
  });

  it('refuses a row of a newer format, naming its version and the newest this code reads', () => {
    const newer = { ...asJson(toStoredState(started())), formatVersion: 4, somethingNew: { shape: 'unknown here' } };
    expect(readStoredState(newer)).toEqual({ ok: false, reason: 'newer', formatVersion: 4, supportedVersion: 3 });
  });

  it('reports each field that breaks the schema by its JSON path', () => {
    const broken = format1() as { taskRuns: { attempts: { state: string }[] }[]; nextSeq?: unknown; root: unknown };
    broken.taskRuns[2].attempts[0].state = 'EXPLODED';
    delete broken.nextSeq;
    broken.root = 'nowhere';
    expect(
      problems(readStoredState(broken))
        .map((problem) => problem.path)
        .sort(),
    ).toEqual(['nextSeq', 'root', 'taskRuns[2].attempts[0].state']);
  });

  it('reports a version that is not a whole number from 1, and a value that is not an object', () => {
    expect(problems(readStoredState({ ...format1(), formatVersion: 'two' }))).toEqual([
      { path: 'formatVersion', message: expect.stringContaining('format version') },
    ]);
    expect(problems(readStoredState({ ...format1(), formatVersion: 0 }))[0]?.path).toBe('formatVersion');
    expect(problems(readStoredState([1, 2]))).toEqual([{ path: '(state)', message: 'Expected a JSON object' }]);
  });

  it('keeps a field its schema does not name instead of dropping it', () => {
    const execution = started();
    const stored = asJson(withStoredTaskRuns(toStoredState(execution), listTaskRuns(execution)));
    const runs = stored['taskRuns'] as Record<string, unknown>[];
    runs[0] = { ...runs[0], addedLater: 7 };
    const reading = loaded(readStoredState(stored));
    expect(reading.execution.taskRuns.get(runs[0]['id'] as string)).toMatchObject({ addedLater: 7 });
  });
});
