import { Execution, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

const FLOW = `
id: hello
namespace: e2e.basics
inputs:
  - { id: name, type: STRING, defaults: world, required: false }
tasks:
  - id: greet
    type: io.kestra.plugin.core.log.Log
    message: "hello {{ inputs.name }}"
  - id: answer
    type: io.kestra.plugin.core.debug.Return
    format: "answer for {{ inputs.name }}"
outputs:
  - { id: answer, type: STRING, value: "{{ outputs.answer.value }}" }
`;

describe('a two-task flow submitted through the API', () => {
  const { lanner } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('runs both tasks on a remote worker and ends SUCCESS with its outputs', async () => {
    const created = await lanner.execute('e2e.basics', 'hello', { name: 'lanner' });
    expect(stateOf(created)).toBe('CREATED');

    const ended = await lanner.waitUntilEnded(created.id);

    expect(stateOf(ended)).toBe('SUCCESS');
    expect(ended.outputs).toEqual({ answer: 'answer for lanner' });
    const greet = onlyTaskRun(ended, 'greet');
    const answer = onlyTaskRun(ended, 'answer');
    expect([stateOf(greet), stateOf(answer)]).toEqual(['SUCCESS', 'SUCCESS']);
    expect(outputsOf(answer)).toEqual({ value: 'answer for lanner' });
    // Each ran once, on a worker of the default queue that the API can name.
    for (const run of [greet, answer]) {
      expect(run.attempts).toHaveLength(1);
      const [attempt] = run.attempts ?? [];
      expect(stateOf(attempt)).toBe('SUCCESS');
      expect(attempt.workerId).toEqual(expect.any(String));
      expect(attempt.workerQueueId).toBe('default');
    }
  });

  it('answers only when the execution has ended with ?wait=true', async () => {
    const answer = await lanner.request<Execution>('POST', '/executions/e2e.basics/hello?wait=true&waitTimeout=PT60S', {
      json: {},
    });

    expect(answer.status).toBe(200);
    expect(stateOf(answer.body)).toBe('SUCCESS');
    expect(answer.body.outputs).toEqual({ answer: 'answer for world' });
  });
});
