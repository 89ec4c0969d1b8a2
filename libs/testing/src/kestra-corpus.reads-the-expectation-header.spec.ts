import { CorpusHeaderError, parseCorpusHeader, valueAtPath } from './index';

const FILE = 'tests/flows/kestra/pebble/sample.yaml';

function header(lines: string[]): string {
  return [...lines, 'id: sample', 'namespace: compat.pebble', 'tasks: []', ''].join('\n');
}

describe('parseCorpusHeader', () => {
  it('reads every key of the format, and leaves prose comments alone', () => {
    const parsed = parseCorpusHeader(
      header([
        '# Kestra renders the list as JSON.',
        '# expect: state=SUCCESS taskRuns=3',
        '# inputs: {"name": "world", "n": 2}',
        '# resume: {"approved": true}',
        '# resume: {}',
        '# requires: ../flowables/child-flow.yaml',
        '# expect-taskrun: each SUCCESS,FAILED',
        '# expect-attempts: flaky 3',
        '# expect-output: render.value = "hello world"',
        '# expect-output: render.values.0 = {"a": [1, null]}',
        '# expect-label: system.correlationId = abc',
        '# expect-label: team =',
        '# follow: retries',
      ]),
      FILE,
    );
    expect(parsed).toEqual({
      end: { state: 'SUCCESS', taskRuns: 3 },
      inputs: { name: 'world', n: 2 },
      resumes: [{ approved: true }, {}],
      requires: ['../flowables/child-flow.yaml'],
      taskRunStates: [{ taskId: 'each', states: ['SUCCESS', 'FAILED'] }],
      attempts: [{ taskId: 'flaky', attempts: 3 }],
      outputs: [
        { taskId: 'render', path: ['value'], value: 'hello world', text: 'render.value = "hello world"' },
        { taskId: 'render', path: ['values', '0'], value: { a: [1, null] }, text: 'render.values.0 = {"a": [1, null]}' },
      ],
      labels: [
        { key: 'system.correlationId', value: 'abc' },
        { key: 'team', value: '' },
      ],
      followRetries: true,
    });
  });

  it('reads only the leading comments: an expect line after the YAML starts is not a header', () => {
    const source = `# expect-invalid: is not a valid\nid: x\n# expect-attempts: nonsense here\n`;
    expect(parseCorpusHeader(source, FILE)).toMatchObject({ invalid: 'is not a valid', attempts: [] });
  });

  it.each([
    [['# note: no expectation'], `${FILE}: no \`# expect:\` or \`# expect-invalid:\` line`],
    [['# expect: state=SUCCESS taskRuns=1', '# expect-outputs: {}'], `${FILE}:2: unknown key 'expect-outputs'`],
    [['# expect: state=SUCCESS'], `${FILE}:1: \`expect:\` needs state=<STATE> and taskRuns=<N>`],
    [['# expect: state=DONE taskRuns=1'], `${FILE}:1: unknown state 'DONE'`],
    [['# expect: state=SUCCESS taskRuns=two'], `${FILE}:1: taskRuns=two is not a whole number`],
    [['# expect: state=SUCCESS taskRuns=1 attempts=2'], `${FILE}:1: unknown field 'attempts'`],
    [['# expect: state=SUCCESS taskRuns=1', '# inputs: [1]'], `${FILE}:2: expected a JSON object, got: [1]`],
    [['# expect: state=SUCCESS taskRuns=1', '# expect-output: a.b = nope'], `${FILE}:2: not JSON`],
    [['# expect: state=SUCCESS taskRuns=1', '# expect-output: a = 1'], `${FILE}:2: 'a' is not <taskId>.<dot.path>`],
    [['# expect: state=SUCCESS taskRuns=1', '# expect-taskrun: a'], `${FILE}:2: expected \`<taskId> <STATE>`],
    [['# expect: state=SUCCESS taskRuns=1', '# expect-attempts: a x'], `${FILE}:2: expected \`<taskId> <N>\``],
    [['# expect: state=SUCCESS taskRuns=1', '# expect: state=FAILED taskRuns=1'], `${FILE}:2: a second \`expect:\` line`],
    [['# expect: state=SUCCESS taskRuns=1', '# expect-invalid: bad'], `${FILE}: both`],
    [['# expect-invalid: bad', '# expect-label: a = b'], `${FILE}: a flow expected to be refused cannot also expect`],
    [['# expect: state=SUCCESS taskRuns=1', '# requires: child'], `${FILE}:2: 'child' is not a flow file (.yaml)`],
    [['# expect: state=SUCCESS taskRuns=1', '# follow: restarts'], `${FILE}:2: 'restarts' cannot be followed (follow: retries)`],
  ])('refuses %j naming the file and line', (lines, message) => {
    expect(() => parseCorpusHeader(header(lines), FILE)).toThrow(CorpusHeaderError);
    expect(() => parseCorpusHeader(header(lines), FILE)).toThrow(message);
  });
});

describe('valueAtPath', () => {
  const outputs = { value: 'x', list: [{ a: null }], nested: { 'b-c': 1 } };

  it('follows map keys and list indexes, a null included', () => {
    expect(valueAtPath(outputs, ['value'])).toEqual({ found: true, value: 'x' });
    expect(valueAtPath(outputs, ['list', '0', 'a'])).toEqual({ found: true, value: null });
    expect(valueAtPath(outputs, ['nested', 'b-c'])).toEqual({ found: true, value: 1 });
  });

  it('says when a step is missing, an inherited member included', () => {
    expect(valueAtPath(outputs, ['list', '1'])).toEqual({ found: false });
    expect(valueAtPath(outputs, ['value', 'length'])).toEqual({ found: false });
    expect(valueAtPath(outputs, ['toString'])).toEqual({ found: false });
  });
});
