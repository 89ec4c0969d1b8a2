import type { NewFlowRevision } from '@lanner/model';
import { useTestRepositories } from '../testing/test-database';

const pollingFlow = (intervalMs: number): NewFlowRevision => ({
  namespace: 'company.poll',
  flowId: 'watched',
  source: 'flow source',
  definition: {
    id: 'watched',
    namespace: 'company.poll',
    triggers: [{ id: 'watch', kind: 'HttpPolling', uri: 'http://127.0.0.1/x', method: 'GET', intervalMs, disabled: false }],
  },
});
const key = { tenantId: 'main', namespace: 'company.poll', flowId: 'watched', triggerId: 'watch' };

describe('a polling trigger in the trigger table', () => {
  const fixture = useTestRepositories();

  it('is due at once, stays leased while its poll runs past the claim lease, fires once, and restarts on a new interval', async () => {
    const { flows, triggers } = fixture.repositories;
    await flows.create('main', pollingFlow(1000));
    const now = new Date();
    const [claimed] = await triggers.claimDue('s-1', now, 10_000, 10);
    expect(claimed).toMatchObject({ triggerId: 'watch', kind: 'HttpPolling', pending: true, lockHolder: 's-1' });

    // The poll is on a worker: the lease is held until its answer (or 60 s), not the claim's 10 s.
    expect(await triggers.holdLease(claimed, 's-1', new Date(now.getTime() + 60_000))).toBe(true);
    expect(await triggers.claimDue('s-2', new Date(now.getTime() + 20_000), 10_000, 10)).toEqual([]);
    // Another scheduler's claim snapshot holds nothing.
    expect(await triggers.holdLease({ ...claimed, lockHolder: 's-2' }, 's-2', new Date(now.getTime() + 90_000))).toBe(false);

    const answeredAt = new Date(now.getTime() + 2000);
    const next = new Date(answeredAt.getTime() + 1000);
    const execution = {
      id: 'polled-1',
      namespace: 'company.poll',
      flowId: 'watched',
      flowRevision: 1,
      state: 'CREATED' as const,
      stateHistories: [{ state: 'CREATED' as const, date: answeredAt }],
      trigger: { id: 'watch', type: 'io.kestra.plugin.core.http.Trigger', variables: { code: 200, body: 'v2' } },
    };
    expect(
      (await triggers.advance(claimed, 's-1', { nextDate: next, executions: [execution], lastDate: answeredAt })).written,
    ).toBe(true);
    expect(await triggers.get(key)).toMatchObject({
      nextDate: next,
      pending: false,
      lockHolder: null,
      lastExecutionId: 'polled-1',
      lastExecutionState: 'CREATED',
    });
    // A late second answer to the same poll writes nothing.
    expect((await triggers.advance(claimed, 's-1', { nextDate: next, executions: [] })).written).toBe(false);
    expect(await triggers.holdLease(claimed, 's-1', new Date(now.getTime() + 60_000))).toBe(false);

    await flows.saveRevision('main', pollingFlow(1000));
    expect((await triggers.get(key)).nextDate).toEqual(next);
    await flows.saveRevision('main', pollingFlow(5000));
    expect(await triggers.get(key)).toMatchObject({ pending: true, nextDate: null });
  });
});
