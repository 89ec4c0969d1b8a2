import { formatProblem } from './parse-flow';
import { messagesOf, problemsOf, readFlow } from './spec-helpers';

const task = 'tasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n';

describe('parseFlow checks worker selectors, concurrency, labels and variables', () => {
  it('defaults a worker selector to match ALL, with no fallback of its own', () => {
    expect(
      readFlow(`id: f\nnamespace: n\nworkerSelector: { tags: [gpu, "{{ inputs.region }}"] }\n${task}`).workerSelector,
    ).toEqual({
      tags: ['gpu', '{{ inputs.region }}'],
      match: 'ALL',
    });
  });

  it('refuses a fallback without tags, and unknown match or fallback values', () => {
    const problems = problemsOf(`id: f
namespace: n
workerSelector: { fallback: WAIT }
tasks:
  - id: a
    type: io.kestra.plugin.core.log.Log
    message: hi
    workerSelector: { tags: [], fallback: IGNORE }
  - id: b
    type: io.kestra.plugin.core.log.Log
    message: hi
    workerSelector: { tags: [gpu], match: SOME, fallback: RETRY }
`);
    expect(problems.map(formatProblem)).toEqual([
      'workerSelector.fallback: may only be set when tags is not empty (line 3)',
      'tasks[0].workerSelector.fallback: may only be set when tags is not empty (line 8)',
      'tasks[1].workerSelector.match: must be one of ALL, ANY (line 12)',
      'tasks[1].workerSelector.fallback: must be one of FAIL, WAIT, CANCEL, IGNORE (line 12)',
    ]);
  });

  it('reads concurrency, queueing by default like Kestra', () => {
    expect(readFlow(`id: f\nnamespace: n\nconcurrency: { limit: 3 }\n${task}`).concurrency).toEqual({
      limit: 3,
      behavior: 'QUEUE',
    });
    expect(readFlow(`id: f\nnamespace: n\nconcurrency: { limit: 1, behavior: CANCEL }\n${task}`).concurrency).toEqual({
      limit: 1,
      behavior: 'CANCEL',
    });
  });

  it('refuses a concurrency without a limit of at least 1 or with an unknown behavior', () => {
    expect(messagesOf(`id: f\nnamespace: n\nconcurrency: { behavior: FAIL }\n${task}`)).toEqual(['concurrency.limit: required']);
    expect(messagesOf(`id: f\nnamespace: n\nconcurrency: { limit: 0, behavior: DROP }\n${task}`)).toEqual([
      'concurrency.limit: must be >= 1',
      'concurrency.behavior: must be one of QUEUE, CANCEL, FAIL',
    ]);
  });

  it('reads labels as a mapping or as a list of key/value pairs', () => {
    expect(readFlow(`id: f\nnamespace: n\nlabels: { team: data, tier: 1 }\n${task}`).labels).toEqual({ team: 'data', tier: '1' });
    expect(readFlow(`id: f\nnamespace: n\nlabels:\n  - { key: team, value: data }\n${task}`).labels).toEqual({ team: 'data' });
    expect(messagesOf(`id: f\nnamespace: n\nlabels:\n  - { key: team }\n${task}`)).toEqual(['labels[0].value: required']);
  });

  it('keeps variables as written, templates included', () => {
    const flow = readFlow(
      `id: f\nnamespace: n\nvariables:\n  bucket: reports\n  path: "{{ vars.bucket }}/{{ execution.id }}"\n  sizes: [1, 2.5, null, true]\n${task}`,
    );
    expect(flow.variables).toEqual({
      bucket: 'reports',
      path: '{{ vars.bucket }}/{{ execution.id }}',
      sizes: [1, 2.5, null, true],
    });
  });

  it('reads the optional flow fields', () => {
    const flow = readFlow(`id: f\nnamespace: a.b-c.d_e\nrevision: 4\ndescription: the flow\ndisabled: true\n${task}`);
    expect(flow).toMatchObject({
      namespace: 'a.b-c.d_e',
      revision: 4,
      description: 'the flow',
      disabled: true,
      errors: [],
      finally: [],
    });
  });
});
