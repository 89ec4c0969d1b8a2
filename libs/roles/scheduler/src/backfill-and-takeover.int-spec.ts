// Two scheduler processes on one fresh database and the real Kafka: a backfill
// fires each past date of its range once, paced, and stops while paused; a
// lease held by a scheduler the liveness registry shows dead is taken over at
// once, not at its expiry.

import { randomBytes, randomUUID } from 'node:crypto';
import { parseFlow } from '@lanner/model';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { freePort } from '@lanner/testing';
import { Client } from 'pg';
import { onServer, SchedulerProcess } from './testing/scheduler-process';

const run = `${process.pid}_${randomBytes(3).toString('hex')}`;
const PER_SECOND = 4;

function flowSource(id: string, cron: string): string {
  return `id: ${id}
namespace: spec.backfill
tasks:
  - { id: hello, type: io.kestra.plugin.core.log.Log, message: "{{ trigger.date }}" }
triggers:
  - { id: sched, type: io.kestra.plugin.core.trigger.Schedule, cron: "${cron}" }
`;
}

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('backfills and lease takeover with two scheduler processes', () => {
  const name = `lanner_backfill_${run}`;
  let repositories: Repositories;
  let client: Client;
  const schedulers: SchedulerProcess[] = [];

  async function createFlow(id: string, cron: string): Promise<void> {
    const source = flowSource(id, cron);
    const parsed = parseFlow(source);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    await repositories.flows.create('main', {
      namespace: 'spec.backfill',
      flowId: id,
      source,
      definition: JSON.parse(JSON.stringify(parsed.flow)),
    });
  }

  async function firedDates(flowId: string): Promise<{ date: string; createdAt: string; backfill: string | null }[]> {
    const { rows } = await client.query<{ date: string; created_at: string; backfill: string | null }>(
      `SELECT trigger->'variables'->>'date' AS date, state_histories->0->>'date' AS created_at, labels->>'system.backfill' AS backfill
       FROM executions WHERE flow_id = $1 ORDER BY trigger->'variables'->>'date'`,
      [flowId],
    );
    return rows.map((row) => ({ date: row.date, createdAt: row.created_at, backfill: row.backfill }));
  }

  beforeAll(async () => {
    await onServer(`CREATE DATABASE ${name}`);
    const url = new URL(process.env['DATABASE_URL'] ?? '');
    url.pathname = `/${name}`;
    await applyMigrations(url.toString());
    repositories = await openRepositories(url.toString(), { poolSize: 4 });
    client = new Client({ connectionString: url.toString() });
    await client.connect();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: url.toString(),
      LANNER_KAFKA_NAMESPACE: `spec-backfill-${run}.`,
      LANNER_LOG_LEVEL: 'info',
      LANNER_SCHEDULER_BACKFILL_PER_SECOND: String(PER_SECOND),
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
    };
    for (const schedulerName of ['backfill-a', 'backfill-b']) {
      schedulers.push(new SchedulerProcess(schedulerName, await freePort(), env));
    }
    await Promise.all(schedulers.map((scheduler) => scheduler.ready()));
  });

  afterAll(async () => {
    await Promise.all(schedulers.map((scheduler) => scheduler.stop('SIGTERM')));
    await client?.end();
    await repositories?.close();
    await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('fires each past date of the range once, oldest first, a few per second, and nothing while paused', async () => {
    await createFlow('hourly', '0 * * * *');
    const key = { tenantId: 'main', namespace: 'spec.backfill', flowId: 'hourly', triggerId: 'sched' };
    const start = new Date('2026-01-10T00:00:00Z');
    const end = new Date('2026-01-11T05:00:00Z'); // 30 hourly dates, both ends included
    await repositories.triggers.createBackfill(
      key,
      { id: randomUUID(), start, end, inputs: {}, labels: { reason: 'outage' } },
      new Date(),
    );

    // Paused after a few steps: nothing more fires until it is resumed.
    const deadline = Date.now() + 30_000;
    while ((await repositories.triggers.get(key)).backfill?.done === 0 && Date.now() < deadline) await wait(200);
    await repositories.triggers.pauseBackfill(key);
    await wait(1500); // a step evaluated while the pause landed is dropped at its write
    const whenPaused = (await firedDates('hourly')).length;
    expect(whenPaused).toBeGreaterThan(0);
    expect(whenPaused).toBeLessThan(30);
    await wait(2500);
    expect((await firedDates('hourly')).length).toBe(whenPaused);
    expect((await repositories.triggers.get(key)).backfill).toMatchObject({ paused: true, done: whenPaused });

    await repositories.triggers.resumeBackfill(key, new Date());
    while ((await repositories.triggers.get(key)).backfill?.dueAt !== null && Date.now() < deadline + 30_000) await wait(300);

    const fired = await firedDates('hourly');
    expect(fired.map((row) => row.date)).toEqual(
      Array.from({ length: 30 }, (_, hour) => new Date(start.getTime() + hour * 3_600_000).toISOString()),
    );
    expect(new Set(fired.map((row) => row.backfill))).toEqual(new Set(['true']));
    // Paced: one step a second per backfill, each of at most PER_SECOND dates, whichever scheduler ran it.
    const perSecond = new Map<number, number>();
    for (const row of fired) {
      const second = Math.floor(Date.parse(row.createdAt) / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(PER_SECOND);
    expect((await repositories.triggers.get(key)).backfill).toMatchObject({ done: 30, paused: false, dueAt: null });
  });

  it('a lease held by a killed scheduler is taken over as soon as the registry shows it NOT_RUNNING', async () => {
    await createFlow('every-minute', '* * * * *');
    const key = { tenantId: 'main', namespace: 'spec.backfill', flowId: 'every-minute', triggerId: 'sched' };
    // Let a scheduler evaluate it once (its first date is the next minute) before the lease is planted.
    const deadline = Date.now() + 30_000;
    while ((await repositories.triggers.get(key)).pending && Date.now() < deadline) await wait(200);

    // The victim holds a long lease on the trigger, as if it had just claimed it, and is killed.
    const victim = schedulers[0];
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM service_instances WHERE role = 'SCHEDULER' AND (metadata->>'pid')::int = $1`,
      [victim.child.pid],
    );
    expect(rows).toHaveLength(1);
    const victimId = rows[0].id;
    const planted = await client.query<{ next_date: Date }>(
      `UPDATE flow_triggers SET next_date = date_trunc('minute', now()) - interval '1 minute',
         lock_holder = $1, lock_expires_at = now() + interval '10 minutes'
       WHERE flow_id = 'every-minute' RETURNING next_date`,
      [victimId],
    );
    const due = planted.rows[0].next_date.toISOString();
    await victim.stop('SIGKILL');

    // While the registry still shows it running, its lease holds: nothing fires.
    await wait(3000);
    expect(await firedDates('every-minute')).toEqual([]);
    expect((await repositories.triggers.get(key)).lockHolder).toBe(victimId);

    // The coordinator's two steps for an instance silent for a while (here without waiting for its
    // timeouts): silent 8.5 s is the victim only (silent 9 s and more), the survivor beats every 3 s
    // (late by over 5 s on a loaded machine before it would count).
    await wait(6000);
    const now = new Date();
    const silentBefore = new Date(now.getTime() - 8500);
    expect(
      (await repositories.serviceInstances.transitionSilent(['RUNNING'], 'DISCONNECTED', silentBefore, now)).map((i) => i.id),
    ).toEqual([victimId]);
    await repositories.serviceInstances.transitionSilent(['DISCONNECTED'], 'NOT_RUNNING', silentBefore, now);
    expect((await repositories.serviceInstances.get(victimId)).state).toBe('NOT_RUNNING');

    const takenBy = Date.now() + 10_000;
    while ((await firedDates('every-minute')).length === 0 && Date.now() < takenBy) await wait(200);
    // Fired long before the 10-minute lease expires: the planted date first, each date once.
    const fired = await firedDates('every-minute');
    expect(fired[0]?.date).toBe(due);
    expect(new Set(fired.map((row) => row.date)).size).toBe(fired.length);
    const after = await repositories.triggers.get(key);
    expect(after.lockHolder === null || after.lockHolder !== victimId).toBe(true);
    expect(schedulers[1].child.exitCode).toBeNull();
  });
});
