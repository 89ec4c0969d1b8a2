import type { NewFlowRevision } from '@lanner/model';
import { useTestRepositories } from '../testing/test-database';

const scheduleFlow = (cron: string, extra = ''): NewFlowRevision => ({
  namespace: 'company.sched',
  flowId: 'nightly',
  source: 'flow source',
  definition: {
    id: 'nightly',
    namespace: 'company.sched',
    triggers: [
      { id: 'every', kind: 'Schedule', cron, timezone: 'Etc/UTC', withSeconds: false, disabled: extra === 'disabled' },
      { id: 'hook', kind: 'Webhook', key: 'k' },
    ],
  },
});
const key = { tenantId: 'main', namespace: 'company.sched', flowId: 'nightly', triggerId: 'every' };

describe('flow triggers', () => {
  const fixture = useTestRepositories();

  it('follow the flow revisions: created pending, kept across an unchanged revision, restarted on a changed cron, gone on delete', async () => {
    const { flows, triggers } = fixture.repositories;
    await flows.create('main', scheduleFlow('0 * * * *'));
    const listed = await triggers.search('main', { namespace: 'company.sched', page: 1, size: 10 });
    expect(listed.results.map((row) => [row.triggerId, row.kind, row.pending])).toEqual([
      ['every', 'Schedule', true],
      ['hook', 'Webhook', false],
    ]);

    const now = new Date();
    const [claimed] = await triggers.claimDue('s-1', now, 10_000, 10);
    expect(claimed).toMatchObject({ triggerId: 'every', lockHolder: 's-1', pending: true });
    const next = new Date(now.getTime() + 60_000);
    expect((await triggers.advance(claimed, 's-1', { nextDate: next, executions: [] })).written).toBe(true);
    expect((await triggers.get(key)).nextDate).toEqual(next);

    await flows.saveRevision('main', scheduleFlow('0 * * * *'));
    expect((await triggers.get(key)).nextDate).toEqual(next);
    await flows.saveRevision('main', scheduleFlow('30 * * * *'));
    expect(await triggers.get(key)).toMatchObject({ pending: true, nextDate: null });

    await flows.softDelete('main', 'company.sched', 'nightly');
    expect((await triggers.search('main', { namespace: 'company.sched', page: 1, size: 10 })).total).toBe(0);
  });

  it('a due row is claimed by one scheduler at a time, fires once, and an expired lease is taken over', async () => {
    const { flows, triggers, executions } = fixture.repositories;
    await flows.create('main', scheduleFlow('* * * * *'));
    const now = new Date();
    // Two schedulers claim at the same instant: one gets the row.
    const [first, second] = await Promise.all([
      triggers.claimDue('s-1', now, 5_000, 10),
      triggers.claimDue('s-2', now, 5_000, 10),
    ]);
    expect(first.length + second.length).toBe(1);
    const winner = first.length === 1 ? 's-1' : 's-2';
    const loser = winner === 's-1' ? 's-2' : 's-1';
    const [pending] = [...first, ...second];
    expect((await triggers.advance(pending, winner, { nextDate: new Date(now.getTime() - 1000), executions: [] })).written).toBe(
      true,
    );

    const due = new Date(now.getTime() - 1000);
    const [claimed] = await triggers.claimDue(winner, now, 5_000, 10);
    expect(claimed.nextDate).toEqual(due);
    // The holder stalls past its lease; the other scheduler takes the row over and fires the date.
    const later = new Date(now.getTime() + 6_000);
    const [takenOver] = await triggers.claimDue(loser, later, 5_000, 10);
    expect(takenOver.lockHolder).toBe(loser);
    const execution = (id: string) => ({
      id,
      namespace: 'company.sched',
      flowId: 'nightly',
      flowRevision: 1,
      state: 'CREATED' as const,
      stateHistories: [{ state: 'CREATED' as const, date: later }],
      trigger: { id: 'every', type: 'io.kestra.plugin.core.trigger.Schedule', variables: { date: due.toISOString() } },
    });
    const nextDate = new Date(due.getTime() + 60_000);
    expect(
      (await triggers.advance(takenOver, loser, { nextDate, executions: [execution('fired-by-loser')], lastDate: due })).written,
    ).toBe(true);
    // The stalled holder wakes up and tries to fire the same date: refused, nothing inserted.
    expect(
      (await triggers.advance(claimed, winner, { nextDate, executions: [execution('fired-twice')], lastDate: due })).written,
    ).toBe(false);
    await expect(executions.get('main', 'fired-twice')).rejects.toThrow('does not exist');
    expect(await triggers.get(key)).toMatchObject({
      lastExecutionId: 'fired-by-loser',
      lastExecutionState: 'CREATED',
      lockHolder: null,
    });
  });

  it('lists the executions a schedule created that the executor never handled, older than the given date', async () => {
    const { triggers } = fixture.repositories;
    const type = 'io.kestra.plugin.core.trigger.Schedule';
    const inAMinute = new Date(Date.now() + 60_000);
    expect((await triggers.unannouncedExecutions(type, inAMinute, 10)).map((execution) => execution.id)).toEqual([
      'fired-by-loser',
    ]);
    expect(await triggers.unannouncedExecutions(type, new Date(Date.now() - 60_000), 10)).toEqual([]);
    expect(await triggers.unannouncedExecutions('io.kestra.plugin.core.trigger.Webhook', inAMinute, 10)).toEqual([]);
  });

  it('disable, enable and unlock', async () => {
    const { flows, triggers } = fixture.repositories;
    await flows.saveRevision('main', scheduleFlow('* * * * *'));
    const now = new Date();
    await triggers.setDisabled(key, true);
    expect(await triggers.claimDue('s-1', now, 5_000, 10)).toEqual([]);
    await triggers.setDisabled(key, false);
    expect((await triggers.claimDue('s-1', now, 60_000, 10)).map((row) => row.triggerId)).toEqual(['every']);
    expect(await triggers.claimDue('s-2', now, 60_000, 10)).toEqual([]);
    expect((await triggers.unlock(key)).lockHolder).toBeNull();
    expect((await triggers.claimDue('s-2', now, 60_000, 10)).map((row) => row.lockHolder)).toEqual(['s-2']);
    await expect(triggers.unlock({ ...key, triggerId: 'nope' })).rejects.toThrow('does not exist');
  });
});
