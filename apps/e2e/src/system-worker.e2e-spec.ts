import { onlyTaskRun, outputsOf, scenario, stateOf } from './harness/scenario';

// The system worker as a user meets it, in the distributed cluster and in standalone
// alike: a flow of the platform namespace runs in the executor, on the `system` queue,
// never on one of the cluster's workers; and no worker group may subscribe to `system`.

const FLOW = `
id: nightly-cleanup
namespace: system
tasks:
  - id: announce
    type: io.kestra.plugin.core.log.Log
    message: "cleaning up"
  - id: done
    type: io.kestra.plugin.core.debug.Return
    format: "cleaned"
`;

describe('the in-process system worker', () => {
  const { lanner } = scenario();

  beforeAll(() => lanner.createFlow(FLOW));

  it('runs the tasks of a flow of the system namespace on the system queue, in the executor', async () => {
    const { id } = await lanner.execute('system', 'nightly-cleanup');
    const ended = await lanner.waitUntilEnded(id);

    expect(stateOf(ended)).toBe('SUCCESS');
    for (const taskId of ['announce', 'done']) {
      const attempts = (onlyTaskRun(ended, taskId).attempts ?? []).map((attempt) => [
        stateOf(attempt),
        attempt.workerId,
        attempt.workerQueueId,
      ]);
      expect(attempts).toEqual([['SUCCESS', 'system-worker', 'system']]);
    }
    expect(outputsOf(onlyTaskRun(ended, 'done'))).toEqual({ value: 'cleaned' });
  });

  it('refuses a worker group subscription to the system queue, naming the field', async () => {
    const answer = await lanner.instanceRequest<{ errors: { path: string; message: string }[] }>(
      'PUT',
      '/worker-groups/default/subscriptions/system',
      { json: {} },
    );
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([
      {
        path: 'workerQueueId',
        message: "cannot subscribe to the 'system' worker queue: it is served only by the in-process system worker",
      },
    ]);
  });
});
