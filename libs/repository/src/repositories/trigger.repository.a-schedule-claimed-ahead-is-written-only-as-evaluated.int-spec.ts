import type { NewExecution, NewFlowRevision, TriggerStateRecord } from '@lanner/model';
import { Client } from 'pg';
import { useTestRepositories } from '../testing/test-database';

const flow = (flowId: string, extra: Record<string, unknown> = {}): NewFlowRevision => ({
  namespace: 'company.ahead',
  flowId,
  source: 'flow source',
  definition: {
    id: flowId,
    namespace: 'company.ahead',
    ...extra,
    triggers: [{ id: 'every', kind: 'Schedule', cron: '* * * * *', timezone: 'Etc/UTC', withSeconds: false }],
  },
});
const keyOf = (flowId: string) => ({ tenantId: 'main', namespace: 'company.ahead', flowId, triggerId: 'every' });

describe('a schedule claimed ahead of its date', () => {
  const fixture = useTestRepositories();
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: fixture.database.url });
    // The fixture drops the database when the file ends, this connection with it.
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(() => client.end());

  const execution = (id: string, flowId: string, due: Date): NewExecution => ({
    id,
    namespace: 'company.ahead',
    flowId,
    flowRevision: 1,
    state: 'CREATED',
    stateHistories: [{ state: 'CREATED', date: due }],
    inputs: { greeting: 'hi' },
    labels: { team: 'data', 'system.triggerId': 'every' },
    trigger: { id: 'every', type: 'io.kestra.plugin.core.trigger.Schedule', variables: { date: due.toISOString() } },
  });

  /** A flow whose schedule was evaluated once: its next date is `due`. */
  async function scheduled(flowId: string, due: Date, now: Date): Promise<void> {
    const { flows, triggers } = fixture.repositories;
    await flows.create('main', flow(flowId));
    const claimed = (await triggers.claimDue('s-0', now, 10_000, 100)).find((row) => row.flowId === flowId);
    if (claimed === undefined) throw new Error(`${flowId} not claimed`);
    await triggers.advance(claimed, 's-0', { nextDate: due, executions: [] });
  }

  function found(rows: readonly TriggerStateRecord[], flowId: string): TriggerStateRecord {
    const row = rows.find((candidate) => candidate.flowId === flowId);
    if (row === undefined) throw new Error(`${flowId} not claimed`);
    return row;
  }

  async function claimAhead(holder: string, flowId: string, now: Date, aheadMs: number): Promise<TriggerStateRecord | undefined> {
    return (await fixture.repositories.triggers.claimDue(holder, now, 10_000, 100, aheadMs)).find((row) => row.flowId === flowId);
  }

  it('is claimed only within the look-ahead, leased past its date, and written at its date with its executions', async () => {
    const { triggers, executions } = fixture.repositories;
    const now = new Date();
    const due = new Date(now.getTime() + 5_000);
    await scheduled('plain', due, now);

    expect(await claimAhead('s-1', 'plain', now, 0)).toBeUndefined();
    expect(await claimAhead('s-1', 'plain', now, 4_000)).toBeUndefined();
    const claimed = await claimAhead('s-1', 'plain', now, 6_000);
    expect(claimed).toMatchObject({ lockHolder: 's-1', nextDate: due });
    // The lease covers the wait for the date and then the usual lease.
    expect(claimed?.lockExpiresAt).toEqual(new Date(now.getTime() + 6_000 + 10_000));
    // Leased: another scheduler looking ahead does not get it.
    expect(await claimAhead('s-2', 'plain', now, 6_000)).toBeUndefined();

    const next = new Date(due.getTime() + 60_000);
    const [outcome] = await triggers.advanceMany('s-1', [
      {
        claimed: found(claimed === undefined ? [] : [claimed], 'plain'),
        advance: { nextDate: next, executions: [execution('ahead-1', 'plain', due)], lastDate: due, flowRevision: 1 },
      },
    ]);
    expect(outcome.written).toBe(true);
    expect(await triggers.get(keyOf('plain'))).toMatchObject({ nextDate: next, lockHolder: null, lastExecutionId: 'ahead-1' });
    const stored = await executions.get('main', 'ahead-1');
    expect(stored).toMatchObject({
      flowId: 'plain',
      flowRevision: 1,
      state: 'CREATED',
      inputs: { greeting: 'hi' },
      labels: { team: 'data', 'system.triggerId': 'every' },
      trigger: { id: 'every', variables: { date: due.toISOString() } },
      parentExecutionId: null,
    });
    expect(stored.stateHistories).toEqual([{ state: 'CREATED', date: due }]);
  });

  it('is not written when its flow got a new revision or the trigger was disabled since, and its lease can be dropped', async () => {
    const { flows, triggers, executions } = fixture.repositories;
    const now = new Date();
    const due = new Date(now.getTime() + 5_000);
    await scheduled('revised', due, now);
    await scheduled('disabled', due, now);
    const claimed = await triggers.claimDue('s-1', now, 10_000, 100, 6_000);
    const revised = found(claimed, 'revised');
    const disabled = found(claimed, 'disabled');
    // Changed meanwhile: a new revision with the same schedule (its row keeps its date and lease), a disabled trigger.
    await flows.saveRevision('main', flow('revised', { description: 'changed' }));
    await triggers.setDisabled(keyOf('disabled'), true);

    const next = new Date(due.getTime() + 60_000);
    const outcomes = await triggers.advanceMany('s-1', [
      {
        claimed: revised,
        advance: { nextDate: next, executions: [execution('stale-1', 'revised', due)], lastDate: due, flowRevision: 1 },
      },
      {
        claimed: disabled,
        advance: { nextDate: next, executions: [execution('stale-2', 'disabled', due)], lastDate: due, flowRevision: 1 },
      },
    ]);
    expect(outcomes).toEqual([
      { written: false, inserted: [] },
      { written: false, inserted: [] },
    ]);
    await expect(executions.get('main', 'stale-1')).rejects.toThrow('does not exist');
    await expect(executions.get('main', 'stale-2')).rejects.toThrow('does not exist');

    // Released, the revised one is claimed at once by any scheduler (and evaluated against the new revision).
    expect(await triggers.releaseLeases('s-1', [revised])).toBe(1);
    expect(await claimAhead('s-2', 'revised', now, 6_000)).toMatchObject({ lockHolder: 's-2', nextDate: due });
    // A release names the holder: s-1 no longer holds it, so nothing changes.
    expect(await triggers.releaseLeases('s-1', [revised])).toBe(0);
    expect((await triggers.get(keyOf('revised'))).lockHolder).toBe('s-2');
  });

  it('is not written when its last execution ended in a stopAfter state since the evaluation', async () => {
    const { triggers } = fixture.repositories;
    const now = new Date();
    const first = new Date(now.getTime() - 60_000);
    await scheduled('stops', first, now);
    // Its date fires, then the execution fails while the next date is claimed ahead.
    const [due] = await triggers.claimDue('s-1', now, 10_000, 100);
    const ahead = new Date(now.getTime() + 5_000);
    await triggers.advance(due, 's-1', { nextDate: ahead, executions: [execution('stops-1', 'stops', first)], lastDate: first });
    const claimed = found(await triggers.claimDue('s-1', now, 10_000, 100, 6_000), 'stops');
    await client.query(`UPDATE executions SET state = 'FAILED' WHERE id = 'stops-1'`);

    const [outcome] = await triggers.advanceMany('s-1', [
      {
        claimed,
        advance: {
          nextDate: new Date(ahead.getTime() + 60_000),
          executions: [execution('stops-2', 'stops', ahead)],
          lastDate: ahead,
          flowRevision: 1,
          stopAfter: ['FAILED'],
        },
      },
    ]);
    expect(outcome.written).toBe(false);
    expect(await triggers.get(keyOf('stops'))).toMatchObject({ lastExecutionId: 'stops-1', lockHolder: 's-1' });
  });
});
