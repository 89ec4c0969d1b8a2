import { onlyTaskRun, outputsOf, reasonOf, scenario, stateOf, UnexpectedAnswer } from './harness/scenario';

// `range(0, 9999)` doubled fourteen times asks for 163,840,000 items: more than V8 can
// hold, which used to end the process with "Fatal JavaScript invalid size error".
const DOUBLING = `{% set a = range(0, 9999) %}${'{% set a = a + a %}'.repeat(14)}{{ a | length }}`;
const LIST_LIMIT = "'+' would build a list of 1,280,000 items, which exceeds the limit of 1,000,000 items";

const RUNNABLE = `
id: doubling-log
namespace: e2e.hostile
tasks:
  - id: double
    type: io.kestra.plugin.core.log.Log
    message: "${DOUBLING}"
  - id: never
    type: io.kestra.plugin.core.log.Log
    message: not reached
`;

const FLOWABLE = `
id: doubling-if
namespace: e2e.hostile
tasks:
  - id: branch
    type: io.kestra.plugin.core.flow.If
    condition: "${DOUBLING}"
    then:
      - { id: inside, type: io.kestra.plugin.core.log.Log, message: not reached }
`;

const ORDINARY = `
id: ordinary
namespace: e2e.hostile
tasks:
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "{{ range(1, 3) | join('-') }} {{ [3, 1, 3, 2] | unique | sort }}"
`;

const HEAD = 'id: bomb\nnamespace: e2e.hostile\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n';

describe('hostile expressions and YAML bombs sent through the API', () => {
  const { lanner } = scenario();

  beforeAll(async () => {
    for (const flow of [RUNNABLE, FLOWABLE, ORDINARY]) await lanner.createFlow(flow);
  });

  async function healthy(): Promise<number> {
    const response = await fetch(lanner.url('').replace(/\/api\/v1\/[^/]*$/, '/health/ready'), {
      signal: AbortSignal.timeout(10_000),
    });
    return response.status;
  }

  it('fails the task whose property doubles a list past the limit, and only that task', async () => {
    const ended = await lanner.waitUntilEnded((await lanner.execute('e2e.hostile', 'doubling-log')).id, 90_000);

    expect(stateOf(ended)).toBe('FAILED');
    const double = onlyTaskRun(ended, 'double');
    expect(stateOf(double)).toBe('FAILED');
    expect(reasonOf(double)).toContain(LIST_LIMIT);
    expect(reasonOf(double)).toContain('{% set a = a + a %} (line 1, column');
    expect(ended.taskRunList?.some((run) => run.taskId === 'never')).toBe(false);
  });

  it('fails a flowable whose condition doubles a list past the limit', async () => {
    const ended = await lanner.waitUntilEnded((await lanner.execute('e2e.hostile', 'doubling-if')).id, 90_000);

    expect(stateOf(ended)).toBe('FAILED');
    const branch = onlyTaskRun(ended, 'branch');
    expect(stateOf(branch)).toBe('FAILED');
    expect(reasonOf(branch)).toContain(LIST_LIMIT);
  });

  it('stays up: health answers and an ordinary execution submitted afterwards ends SUCCESS', async () => {
    expect(await healthy()).toBe(200);
    const ended = await lanner.waitUntilEnded((await lanner.execute('e2e.hostile', 'ordinary')).id, 90_000);

    expect(stateOf(ended)).toBe('SUCCESS');
    expect(outputsOf(onlyTaskRun(ended, 'answer'))).toEqual({ value: '1-2-3 [1,2,3]' });
  });

  it('refuses YAML bombs with a 422 naming the problem, without building them', async () => {
    const room = 1024 * 1024 - 1024;
    const bombs: [string, string][] = [
      [
        `${HEAD}variables: { deep: ${'['.repeat(room / 2)}${']'.repeat(room / 2)} }\n`,
        'the YAML is nested deeper than 200 levels',
      ],
      [
        `${HEAD}variables:\n  big: [${Array(room / 2)
          .fill('1')
          .join(',')}]\n`,
        'the flow holds more than 100,000 YAML values',
      ],
      [
        `${HEAD}variables:\n  a: &a x\n  big: [${Array(room / 3)
          .fill('*a')
          .join(',')}]\n`,
        'the flow uses more than 1,000 aliases',
      ],
    ];
    for (const [yaml, problem] of bombs) {
      const answer = await lanner.request<{ status: number; errors: { message: string; line?: number }[] }>('POST', '/flows', {
        yaml,
      });
      if (answer.status !== 422) throw new UnexpectedAnswer(`posting a bomb (${problem})`, answer);
      expect(answer.contentType).toContain('application/problem+json');
      expect(answer.body.errors).toEqual([expect.objectContaining({ message: problem, line: expect.any(Number) })]);
    }
    expect(await healthy()).toBe(200);
    expect((await lanner.request('GET', '/flows/e2e.hostile/bomb')).status).toBe(404);
  });
});
