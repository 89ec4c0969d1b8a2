import { Execution, onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

const FLOW = `
id: every-minute
namespace: e2e.backfill
tasks:
  - id: date
    type: io.kestra.plugin.core.debug.Return
    format: "{{ trigger.date }}"
triggers:
  - id: each-minute
    type: io.kestra.plugin.core.trigger.Schedule
    cron: "* * * * *"
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface TriggerRow {
  readonly triggerId: string;
  readonly backfill: { readonly done: number; readonly finished: boolean; readonly currentDate: string } | null;
}

describe('a backfill of a schedule through the trigger API', () => {
  const { lanner } = scenario();

  it('over the 10 past minutes of a "* * * * *" schedule creates exactly 10 executions, one per past minute', async () => {
    await lanner.createFlow(FLOW);
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const start = new Date(minute - 10 * 60_000).toISOString();
    // The end is inclusive: the minute before the current one is the tenth date.
    const end = new Date(minute - 60_000).toISOString();
    const created = await lanner.request<TriggerRow>('POST', '/triggers/e2e.backfill/every-minute/each-minute/backfill', {
      json: { start, end, labels: { reason: 'outage' } },
    });
    expect(created.status).toBe(202);

    let row: TriggerRow | undefined;
    const deadline = Date.now() + 60_000;
    while (row?.backfill?.finished !== true && Date.now() < deadline) {
      await sleep(500);
      const listed = await lanner.request<{ results: TriggerRow[] }>(
        'GET',
        '/triggers/search?namespace=e2e.backfill&flowId=every-minute',
      );
      row = listed.body.results.find((candidate) => candidate.triggerId === 'each-minute');
    }
    expect(row?.backfill).toMatchObject({ done: 10, finished: true });

    const answer = await lanner.request<{ results: Execution[] }>(
      'GET',
      '/executions/search?namespace=e2e.backfill&flowId=every-minute&size=100',
    );
    // The schedule's own firings (a minute passing during the spec) are not the backfill's.
    const backfilled = answer.body.results.filter((execution) => execution.labels?.['system.backfill'] === 'true');
    expect(backfilled).toHaveLength(10);
    const ended = await Promise.all(backfilled.map((execution) => lanner.waitUntilEnded(execution.id)));
    const dates = ended
      .map((execution) => {
        expect(stateOf(execution)).toBe('SUCCESS');
        expect(execution.labels).toMatchObject({ reason: 'outage', 'system.triggerId': 'each-minute' });
        return String(outputsOf(onlyTaskRun(execution, 'date'))['value']);
      })
      .sort();
    expect(dates).toEqual(Array.from({ length: 10 }, (_, index) => new Date(minute - (10 - index) * 60_000).toISOString()));

    expect((await lanner.request('DELETE', '/flows/e2e.backfill/every-minute')).status).toBe(204);
  });
});
