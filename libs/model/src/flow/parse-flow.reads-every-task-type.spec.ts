import { TASK_TYPES } from './flow.types';
import { flowWithTasks, messagesOf, onlyTask } from './spec-helpers';

const common = { disabled: false, allowFailure: false, allowWarning: false };
const log = (id: string): string => `{ id: ${id}, type: io.kestra.plugin.core.log.Log, message: ${id} }`;
const logTask = (id: string) => ({ ...common, id, type: TASK_TYPES.Log, kind: 'Log', message: id, level: 'INFO' });

describe('parseFlow reads every task type of FLOWS.md into its kind', () => {
  it('Sequential, with its own errors and finally', () => {
    expect(
      onlyTask(`  - id: seq
    type: io.kestra.plugin.core.flow.Sequential
    description: steps in order
    tasks: [${log('a')}]
    errors: [${log('b')}]
    finally: [${log('c')}]
`),
    ).toEqual({
      ...common,
      id: 'seq',
      type: TASK_TYPES.Sequential,
      kind: 'Sequential',
      description: 'steps in order',
      tasks: [logTask('a')],
      errors: [logTask('b')],
      finally: [logTask('c')],
    });
  });

  it('Parallel, unlimited unless `concurrency` says otherwise', () => {
    expect(onlyTask(`  - { id: p, type: io.kestra.plugin.core.flow.Parallel, tasks: [${log('a')}] }\n`)).toMatchObject({
      kind: 'Parallel',
      concurrency: 0,
    });
    expect(
      onlyTask(`  - { id: p, type: io.kestra.plugin.core.flow.Parallel, concurrency: 3, tasks: [${log('a')}] }\n`),
    ).toMatchObject({
      kind: 'Parallel',
      concurrency: 3,
    });
  });

  it('If, with then and else', () => {
    expect(
      onlyTask(`  - id: check
    type: io.kestra.plugin.core.flow.If
    condition: "{{ inputs.go }}"
    then: [${log('yes')}]
    else: [${log('no')}]
`),
    ).toEqual({
      ...common,
      id: 'check',
      type: TASK_TYPES.If,
      kind: 'If',
      condition: '{{ inputs.go }}',
      then: [logTask('yes')],
      else: [logTask('no')],
    });
  });

  it('Switch, with cases and defaults', () => {
    expect(
      onlyTask(`  - id: route
    type: io.kestra.plugin.core.flow.Switch
    value: "{{ inputs.kind }}"
    cases:
      daily: [${log('d')}]
      1: [${log('one')}]
    defaults: [${log('other')}]
`),
    ).toEqual({
      ...common,
      id: 'route',
      type: TASK_TYPES.Switch,
      kind: 'Switch',
      value: '{{ inputs.kind }}',
      cases: { daily: [logTask('d')], '1': [logTask('one')] },
      defaults: [logTask('other')],
    });
  });

  it('AllowFailure and WaitFor (with Kestra’s check frequency defaults)', () => {
    expect(onlyTask(`  - { id: tolerant, type: io.kestra.plugin.core.flow.AllowFailure, tasks: [${log('a')}] }\n`)).toMatchObject(
      {
        kind: 'AllowFailure',
        tasks: [logTask('a')],
      },
    );
    expect(
      onlyTask(`  - id: poll
    type: io.kestra.plugin.core.flow.WaitFor
    condition: "{{ outputs.a.code == 200 }}"
    tasks: [${log('a')}]
`),
    ).toMatchObject({
      kind: 'WaitFor',
      checkFrequency: { intervalMs: 1000, maxIterations: 100, maxDurationMs: 3_600_000 },
      failOnMaxReached: false,
    });
    expect(
      onlyTask(`  - id: poll
    type: io.kestra.plugin.core.flow.WaitFor
    condition: "{{ false }}"
    checkFrequency: { interval: PT10S, maxIterations: 5 }
    failOnMaxReached: true
    tasks: [${log('a')}]
`),
    ).toMatchObject({
      checkFrequency: { intervalMs: 10_000, maxIterations: 5, maxDurationMs: 3_600_000 },
      failOnMaxReached: true,
    });
  });

  it('Pause: waits for the API, or resumes itself after pauseDuration; its timeout bounds the wait', () => {
    const forever = onlyTask('  - { id: approve, type: io.kestra.plugin.core.flow.Pause }\n');
    expect(forever).toEqual({ ...common, id: 'approve', type: TASK_TYPES.Pause, kind: 'Pause' });
    expect(
      onlyTask('  - { id: wait, type: io.kestra.plugin.core.flow.Pause, pauseDuration: PT5M, timeout: PT1H }\n'),
    ).toMatchObject({
      kind: 'Pause',
      pauseDurationMs: 300_000,
      pauseTimeoutMs: 3_600_000,
    });
    expect(onlyTask('  - { id: wait, type: io.kestra.plugin.core.flow.Pause, delay: PT1M }\n')).toMatchObject({
      pauseDurationMs: 60_000,
    });
  });

  it('Subflow, waiting and passing failures on by default', () => {
    expect(
      onlyTask(`  - id: child
    type: io.kestra.plugin.core.flow.Subflow
    namespace: company.other
    flowId: load
    inputs: { day: "{{ trigger.date }}", retries: 2 }
    labels: { origin: parent }
`),
    ).toEqual({
      ...common,
      id: 'child',
      type: TASK_TYPES.Subflow,
      kind: 'Subflow',
      namespace: 'company.other',
      flowId: 'load',
      inputs: { day: '{{ trigger.date }}', retries: 2 },
      labels: { origin: 'parent' },
      wait: true,
      transmitFailed: true,
      inheritLabels: false,
    });
  });

  it('Fail and Labels', () => {
    expect(onlyTask('  - { id: stop, type: io.kestra.plugin.core.execution.Fail }\n')).toMatchObject({
      kind: 'Fail',
      errorMessage: 'Task failure',
    });
    expect(
      onlyTask('  - { id: stop, type: io.kestra.plugin.core.execution.Fail, condition: "{{ x }}", errorMessage: bad }\n'),
    ).toMatchObject({ condition: '{{ x }}', errorMessage: 'bad' });
    expect(
      onlyTask('  - { id: tag, type: io.kestra.plugin.core.execution.Labels, labels: { env: prod, run: 3 } }\n'),
    ).toMatchObject({
      kind: 'Labels',
      labels: { env: 'prod', run: '3' },
    });
    expect(
      onlyTask('  - { id: tag, type: io.kestra.plugin.core.execution.Labels, labels: [{ key: env, value: prod }] }\n'),
    ).toMatchObject({ labels: { env: 'prod' } });
  });

  it('Log (one message or several) and its old name Echo, whose format is the message', () => {
    expect(onlyTask('  - { id: say, type: io.kestra.plugin.core.log.Log, message: [one, two], level: WARN }\n')).toMatchObject({
      kind: 'Log',
      message: ['one', 'two'],
      level: 'WARN',
    });
    expect(onlyTask('  - { id: say, type: io.kestra.plugin.core.debug.Echo, format: "hi {{ inputs.name }}" }\n')).toEqual({
      ...common,
      id: 'say',
      type: TASK_TYPES.Echo,
      kind: 'Log',
      message: 'hi {{ inputs.name }}',
      level: 'INFO',
    });
  });

  it('Return, OutputValues and Sleep', () => {
    expect(onlyTask('  - { id: r, type: io.kestra.plugin.core.debug.Return, format: "{{ 1 + 1 }}" }\n')).toMatchObject({
      kind: 'Return',
      format: '{{ 1 + 1 }}',
    });
    expect(
      onlyTask('  - { id: o, type: io.kestra.plugin.core.output.OutputValues, values: { a: 1, b: [x, "{{ y }}"] } }\n'),
    ).toMatchObject({ kind: 'OutputValues', values: { a: 1, b: ['x', '{{ y }}'] } });
    expect(onlyTask('  - { id: s, type: io.kestra.plugin.core.flow.Sleep, duration: PT2S }\n')).toMatchObject({
      kind: 'Sleep',
      durationMs: 2000,
    });
  });

  it('an HTTP request, GET unless told otherwise', () => {
    expect(
      onlyTask('  - { id: get, type: io.kestra.plugin.core.http.Request, uri: "https://example.com/{{ inputs.p }}" }\n'),
    ).toEqual({
      ...common,
      id: 'get',
      type: TASK_TYPES.HttpRequest,
      kind: 'HttpRequest',
      uri: 'https://example.com/{{ inputs.p }}',
      method: 'GET',
    });
    expect(
      onlyTask(`  - id: post
    type: io.kestra.plugin.core.http.Request
    uri: https://example.com
    method: POST
    contentType: application/json
    headers: { X-Token: "{{ secret('TOKEN') }}" }
    body: { a: 1 }
`),
    ).toMatchObject({
      method: 'POST',
      contentType: 'application/json',
      headers: { 'X-Token': "{{ secret('TOKEN') }}" },
      body: { a: 1 },
    });
  });

  it('shell commands and a Node script, with their environment', () => {
    expect(
      onlyTask(
        '  - { id: sh, type: io.kestra.plugin.scripts.shell.Commands, commands: [ls, "echo {{ x }}"], env: { A: "1", B: 2 } }\n',
      ),
    ).toMatchObject({ kind: 'ShellCommands', commands: ['ls', 'echo {{ x }}'], env: { A: '1', B: '2' } });
    expect(
      onlyTask('  - id: js\n    type: io.kestra.plugin.scripts.node.Script\n    script: |\n      console.log(1)\n'),
    ).toMatchObject({
      kind: 'NodeScript',
      script: 'console.log(1)\n',
    });
  });

  it("reads script tasks' inputFiles and outputFiles", () => {
    expect(
      onlyTask(`  - id: sh
    type: io.kestra.plugin.scripts.shell.Commands
    inputFiles:
      data.csv: "{{ outputs.build.outputFiles['out.csv'] }}"
      notes.txt: inline content
    outputFiles: [out.csv, "reports/*.txt"]
    commands: [ls]
`),
    ).toMatchObject({
      kind: 'ShellCommands',
      inputFiles: { 'data.csv': "{{ outputs.build.outputFiles['out.csv'] }}", 'notes.txt': 'inline content' },
      outputFiles: ['out.csv', 'reports/*.txt'],
    });
    expect(
      onlyTask('  - { id: js, type: io.kestra.plugin.scripts.node.Script, script: "1", outputFiles: ["*.json"] }\n'),
    ).toMatchObject({ kind: 'NodeScript', outputFiles: ['*.json'] });
  });

  it('reads the common properties', () => {
    expect(
      onlyTask(`  - id: a
    type: io.kestra.plugin.core.log.Log
    message: hi
    description: says hi
    disabled: true
    runIf: "{{ inputs.go }}"
    allowFailure: true
    allowWarning: true
    timeout: PT1M
    taskCache: { enabled: true, ttl: PT1H }
`),
    ).toMatchObject({
      description: 'says hi',
      disabled: true,
      runIf: '{{ inputs.go }}',
      allowFailure: true,
      allowWarning: true,
      timeoutMs: 60_000,
      taskCache: { enabled: true, ttlMs: 3_600_000 },
    });
  });

  it('reports the required properties of each type', () => {
    expect(
      messagesOf(
        flowWithTasks(`  - { id: a, type: io.kestra.plugin.core.flow.Sequential }
  - { id: b, type: io.kestra.plugin.core.flow.If, then: [] }
  - { id: c, type: io.kestra.plugin.core.flow.Switch }
  - { id: d, type: io.kestra.plugin.core.flow.Subflow }
  - { id: e, type: io.kestra.plugin.core.flow.Sleep }
  - { id: f, type: io.kestra.plugin.core.http.Request, method: FETCH }
  - { id: g, type: io.kestra.plugin.scripts.shell.Commands, commands: [] }
  - { id: h, type: io.kestra.plugin.core.output.OutputValues }
`),
      ),
    ).toEqual([
      'tasks[0].tasks: required',
      'tasks[1].condition: required',
      'tasks[1].then: must contain at least one task',
      'tasks[2].value: required',
      'tasks[2].cases: required',
      'tasks[3].namespace: required',
      'tasks[3].flowId: required',
      'tasks[4].duration: required',
      'tasks[5].uri: required',
      'tasks[5].method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
      'tasks[6].commands: must not be empty',
      'tasks[7].values: required',
    ]);
  });
});
