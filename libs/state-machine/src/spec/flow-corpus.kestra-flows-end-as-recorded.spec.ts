// Runs every Kestra-format flow of tests/flows through parseFlow and the
// simulator, and checks the end state and counts recorded in its leading
// comments:
//   # expect: state=SUCCESS taskRuns=7 [attempts=N] [durationMs=N] [retryExecutions=N]
//   # expect-outputs: {...}          the execution's outputs
//   # script: {...}                  scripted worker answers per task id (JSON)
//   # inputs: {...} / # events: [...] / # subflows: {...} / # runningExecutions: N
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatProblem, parseFlow } from '@lanner/model';
import { listTaskRuns, simulateFlow, type SimulationOptions } from '../index';

const FLOWS_DIR = join(__dirname, '..', '..', '..', '..', 'tests', 'flows');

interface Header {
  readonly expect: Record<string, string>;
  readonly json: Record<string, unknown>;
}

function readHeader(source: string): Header {
  const expect: Record<string, string> = {};
  const json: Record<string, unknown> = {};
  for (const line of source.split('\n')) {
    const match = /^#\s*([\w-]+):\s*(.*)$/.exec(line);
    if (match === null) break;
    const [, key, value] = match as unknown as [string, string, string];
    if (key === 'expect') {
      for (const pair of value.trim().split(/\s+/)) {
        const [name, expected] = pair.split('=');
        if (name !== undefined && expected !== undefined) expect[name] = expected;
      }
    } else {
      json[key] = JSON.parse(value);
    }
  }
  return { expect, json };
}

const files = readdirSync(FLOWS_DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort();

describe('tests/flows corpus', () => {
  it('holds at least 40 flows, each with its expected end', () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
    for (const file of files) {
      const { expect: expected } = readHeader(readFileSync(join(FLOWS_DIR, file), 'utf8'));
      expect({ file, state: expected['state'] !== undefined, taskRuns: expected['taskRuns'] !== undefined }).toEqual({
        file,
        state: true,
        taskRuns: true,
      });
    }
  });

  for (const file of files) {
    it(file, () => {
      const source = readFileSync(join(FLOWS_DIR, file), 'utf8');
      const parsed = parseFlow(source);
      if (!parsed.ok) throw new Error(`${file} does not parse:\n${parsed.problems.map(formatProblem).join('\n')}`);
      const { expect: expected, json } = readHeader(source);
      const options: SimulationOptions = {
        executionId: file.replace(/\.yaml$/, ''),
        ...(json['inputs'] !== undefined ? { inputs: json['inputs'] as SimulationOptions['inputs'] } : {}),
        ...(json['script'] !== undefined ? { script: json['script'] as SimulationOptions['script'] } : {}),
        ...(json['events'] !== undefined ? { events: json['events'] as SimulationOptions['events'] } : {}),
        ...(json['subflows'] !== undefined ? { subflows: json['subflows'] as SimulationOptions['subflows'] } : {}),
        ...(json['runningExecutions'] !== undefined ? { runningExecutions: json['runningExecutions'] as number } : {}),
      };
      const result = simulateFlow(parsed.flow, options);
      const runs = listTaskRuns(result.execution);
      const actual: Record<string, string> = {
        state: result.execution.state,
        taskRuns: String(runs.length),
      };
      if (expected['attempts'] !== undefined) actual['attempts'] = String(Math.max(0, ...runs.map((run) => run.attempts.length)));
      if (expected['durationMs'] !== undefined) actual['durationMs'] = String(result.now);
      if (expected['retryExecutions'] !== undefined) actual['retryExecutions'] = String(result.retryExecutions.length);
      expect(result.exhausted).toBe(false);
      expect(actual).toEqual(expected);
      if (json['expect-outputs'] !== undefined) expect(result.execution.outputs).toEqual(json['expect-outputs']);
      for (const run of runs) expect(run.state).toMatch(/^(SUCCESS|WARNING|FAILED|KILLED|CANCELLED|RETRIED|SKIPPED)$/);
    });
  }
});
