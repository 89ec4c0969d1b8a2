import { Execution, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

const FLOW = `
id: every-second
namespace: e2e.schedule
tasks:
  - id: date
    type: io.kestra.plugin.core.debug.Return
    format: "{{ trigger.date }} after {{ trigger.previous }} before {{ trigger.next }}"
triggers:
  - id: each-second
    type: io.kestra.plugin.core.trigger.Schedule
    cron: "* * * * * *"
    withSeconds: true
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Schedule trigger with a 6-field cron (withSeconds)', () => {
  const { lanner } = scenario();

  async function scheduled(): Promise<Execution[]> {
    const answer = await lanner.request<{ results: Execution[]; total: number }>(
      'GET',
      '/executions/search?namespace=e2e.schedule&flowId=every-second&size=200',
    );
    expect(answer.status).toBe(200);
    return answer.body.results;
  }

  it('fires about once per second with distinct dates, and stops when the flow is deleted', async () => {
    await lanner.createFlow(FLOW);
    const started = Date.now();
    let executions: Execution[] = [];
    while (executions.length < 5 && Date.now() - started < 30_000) {
      await sleep(500);
      executions = await scheduled();
    }
    const elapsedSeconds = (Date.now() - started) / 1000;
    expect(executions.length).toBeGreaterThanOrEqual(5);
    // About one per second: never more executions than seconds elapsed (+1 for the edges).
    expect(executions.length).toBeLessThanOrEqual(Math.ceil(elapsedSeconds) + 1);

    const ended = await Promise.all(executions.slice(0, 5).map((execution) => lanner.waitUntilEnded(execution.id)));
    const texts = ended.map((execution) => {
      expect(stateOf(execution)).toBe('SUCCESS');
      expect(execution.labels).toMatchObject({ 'system.triggerId': 'each-second' });
      return String(outputsOf(onlyTaskRun(execution, 'date'))['value']);
    });
    const dates = texts.map((text) => text.split(' ')[0]);
    expect(new Set(dates).size).toBe(dates.length);
    for (const [index, text] of texts.entries()) {
      const date = Date.parse(dates[index]);
      expect(date % 1000).toBe(0);
      expect(text).toBe(
        `${dates[index]} after ${new Date(date - 1000).toISOString()} before ${new Date(date + 1000).toISOString()}`,
      );
    }

    const deleted = await lanner.request('DELETE', '/flows/e2e.schedule/every-second');
    expect(deleted.status).toBe(204);
    // A firing already committed when the delete landed may still show up within the second.
    await sleep(1500);
    const afterDelete = (await scheduled()).length;
    await sleep(3000);
    expect((await scheduled()).length).toBe(afterDelete);
  });
});
