import { parseFlow } from './parse-flow';
import { flowWithTasks, messagesOf, onlyTask, readFlow } from './spec-helpers';

const warningsOf = (source: string): string[] => {
  const result = parseFlow(source);
  expect(result.ok).toBe(true);
  return result.ok ? (result.warnings ?? []).map((w) => `${w.path}: ${w.message}`) : [];
};

const log = `  - id: hello
    type: io.kestra.plugin.core.log.Log
    message: hi
`;

describe('parseFlow accepts the flow and task properties Kestra accepts', () => {
  it("reads retry.maxAttempt, Kestra's spelling, without a warning", () => {
    const source = flowWithTasks(`${log}    retry: { type: constant, interval: PT1S, maxAttempt: 3 }\n`);
    expect(readFlow(source).tasks[0].retry).toMatchObject({ maxAttempts: 3 });
    expect(warningsOf(source)).toEqual([]);
  });

  it('keeps maxAttempts as an alias, with a deprecation warning naming its path', () => {
    const source = flowWithTasks(`${log}    retry: { type: constant, interval: PT1S, maxAttempts: 2 }\n`);
    expect(readFlow(source).tasks[0].retry).toMatchObject({ maxAttempts: 2 });
    expect(warningsOf(source)).toEqual(["tasks[0].retry.maxAttempts: is deprecated: Kestra's name is 'maxAttempt'"]);
  });

  it('refuses both spellings at once', () => {
    expect(
      messagesOf(flowWithTasks(`${log}    retry: { type: constant, interval: PT1S, maxAttempt: 2, maxAttempts: 2 }\n`)),
    ).toEqual(["tasks[0].retry.maxAttempts: is another spelling of 'maxAttempt'; set only one of them"]);
  });

  it('reads a flow-level retry', () => {
    const flow = readFlow(`id: f\nnamespace: n\nretry: { type: constant, interval: PT2S, maxAttempt: 4 }\ntasks:\n${log}`);
    expect(flow.retry).toEqual({
      type: 'constant',
      intervalMs: 2000,
      maxAttempts: 4,
      behavior: 'RETRY_FAILED_TASK',
      warningOnRetry: false,
    });
  });

  it('reads both SLA kinds with their behavior and labels', () => {
    const flow = readFlow(`id: f
namespace: n
sla:
  - { id: slow, type: MAX_DURATION, behavior: FAIL, duration: PT10M, labels: { sla: missed } }
  - { id: big, type: EXECUTION_ASSERTION, behavior: NONE, assert: "{{ outputs.hello is defined }}" }
tasks:
${log}`);
    expect(flow.sla).toEqual([
      { id: 'slow', type: 'MAX_DURATION', durationMs: 600_000, behavior: 'FAIL', labels: { sla: 'missed' } },
      { id: 'big', type: 'EXECUTION_ASSERTION', assert: '{{ outputs.hello is defined }}', behavior: 'NONE', labels: {} },
    ]);
  });

  it('refuses an SLA without what its type needs, naming the path', () => {
    expect(messagesOf(`id: f\nnamespace: n\nsla:\n  - { id: s, type: MAX_DURATION, behavior: STOP }\ntasks:\n${log}`)).toEqual([
      'sla[0].duration: required',
      'sla[0].behavior: must be one of FAIL, CANCEL, NONE',
    ]);
  });

  it('merges pluginDefaults into the tasks of that type; the task wins unless the default is forced', () => {
    const flow = readFlow(`id: f
namespace: n
pluginDefaults:
  - type: io.kestra.plugin.core.log.Log
    values: { level: WARN, message: from-default }
  - type: io.kestra.plugin.core.debug
    forced: true
    values: { format: forced }
tasks:
  - { id: a, type: io.kestra.plugin.core.log.Log }
  - { id: b, type: io.kestra.plugin.core.log.Log, message: own, level: ERROR }
  - { id: c, type: io.kestra.plugin.core.debug.Return, format: own }
`);
    expect(
      flow.tasks.map((task) => ('message' in task ? [task.message, task.level] : 'format' in task ? task.format : '')),
    ).toEqual([['from-default', 'WARN'], ['own', 'ERROR'], 'forced']);
  });

  it('merges default mappings key by key', () => {
    const flow = readFlow(`id: f
namespace: n
taskDefaults:
  - type: io.kestra.plugin.core.http.Request
    values: { headers: { X-Team: data, X-Env: prod } }
tasks:
  - { id: a, type: io.kestra.plugin.core.http.Request, uri: "https://example.com", headers: { X-Env: dev } }
`);
    expect(flow.tasks[0]).toMatchObject({ headers: { 'X-Env': 'dev', 'X-Team': 'data' } });
  });

  it('says taskDefaults is deprecated and refuses a default property the type does not have', () => {
    const source = `id: f\nnamespace: n\ntaskDefaults:\n  - { type: io.kestra.plugin.core.log.Log, values: { colour: red } }\ntasks:\n${log}`;
    expect(messagesOf(source)).toEqual([
      "taskDefaults[0].values.colour: unknown property 'colour' for io.kestra.plugin.core.log.Log",
    ]);
  });

  it('accepts logLevel and logToFile on any task', () => {
    expect(onlyTask(`${log}    logLevel: WARN\n    logToFile: true\n`)).toMatchObject({ logLevel: 'WARN', logToFile: true });
  });

  it("reads Parallel's concurrent", () => {
    const task = onlyTask(`  - id: p
    type: io.kestra.plugin.core.flow.Parallel
    concurrent: 2
    tasks:
${log.replace(/^ {2}/gm, '      ')}`);
    expect(task).toMatchObject({ kind: 'Parallel', concurrency: 2 });
  });

  it('reads Pause onResume inputs and templated durations', () => {
    const task = onlyTask(`  - id: wait
    type: io.kestra.plugin.core.flow.Pause
    pauseDuration: "{{ inputs.wait }}"
    timeout: PT1H
    onResume:
      - { id: approved, type: BOOLEAN, defaults: false }
`);
    expect(task).toMatchObject({ kind: 'Pause', pauseDurationMs: '{{ inputs.wait }}', pauseTimeoutMs: 3_600_000 });
    expect(task.kind === 'Pause' && task.onResume).toEqual([
      { id: 'approved', type: 'BOOLEAN', required: true, defaults: false },
    ]);
  });

  it("reads a Pause's deprecated tasks and its errors branch, with a warning on tasks", () => {
    const source = `id: f
namespace: n
tasks:
  - id: wait
    type: io.kestra.plugin.core.flow.Pause
    tasks:
${log.replace(/^/gm, '    ').trimEnd()}
    errors:
      - { id: cleanup, type: io.kestra.plugin.core.log.Log, message: bye }
`;
    const task = readFlow(source).tasks[0];
    expect(task?.kind === 'Pause' && task.tasks?.map((t) => t.id)).toEqual(['hello']);
    expect(task?.kind === 'Pause' && task.errors?.map((t) => t.id)).toEqual(['cleanup']);
    expect(warningsOf(source)).toEqual([
      'tasks[0].tasks: is deprecated: put the tasks to run after the resume after the Pause instead',
    ]);
  });

  it('refuses a templated timeout outside a Pause', () => {
    expect(messagesOf(flowWithTasks(`${log}    timeout: "{{ inputs.t }}"\n`))).toEqual([
      'tasks[0].timeout: must be an ISO-8601 duration (a template is read on a Pause only)',
    ]);
  });

  it('reads Labels given as a map, a list, or one template', () => {
    const labels = (value: string) =>
      onlyTask(`  - id: l\n    type: io.kestra.plugin.core.execution.Labels\n    labels: ${value}\n`) as { labels: unknown };
    expect(labels('{ a: "1" }').labels).toEqual({ a: '1' });
    expect(labels('[{ key: a, value: "1" }]').labels).toEqual({ a: '1' });
    expect(labels('"{{ outputs.x.values.labels | json }}"').labels).toBe('{{ outputs.x.values.labels | json }}');
  });

  it("reads an input's old name spelling, with a warning", () => {
    const source = `id: f\nnamespace: n\ninputs:\n  - { name: who, type: STRING }\ntasks:\n${log}`;
    expect(readFlow(source).inputs[0].id).toBe('who');
    expect(warningsOf(source)).toEqual(["inputs[0].name: is deprecated: write 'id'"]);
  });

  it("reads a Subflow's deprecated outputs map", () => {
    const task = onlyTask(`  - id: child
    type: io.kestra.plugin.core.flow.Subflow
    namespace: n
    flowId: c
    outputs: { got: "{{ outputs.last.value }}" }
`);
    expect(task).toMatchObject({ kind: 'Subflow', outputs: { got: '{{ outputs.last.value }}' } });
  });
});
