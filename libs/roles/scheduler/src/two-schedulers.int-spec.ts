// Two scheduler processes (`lanner server scheduler`, as users run them) on one
// fresh database and the real Kafka: every due date of every schedule fires
// once, and a scheduler killed with SIGKILL mid-run changes nothing in that.

import { randomBytes } from 'node:crypto';
import { parseFlow } from '@lanner/model';
import { applyMigrations, openRepositories, type Repositories } from '@lanner/repository';
import { freePort } from '@lanner/testing';
import { Client } from 'pg';
import { onServer, SchedulerProcess } from './testing/scheduler-process';

const FLOWS = 100;
/** The run: a kill at a third of it, then every schedule fired past its end before the flows go. */
const RUN_MS = 30_000;
const run = `${process.pid}_${randomBytes(3).toString('hex')}`;

function flowSource(index: number): string {
  return `id: every-second-${index}
namespace: spec.schedulers
tasks:
  - { id: hello, type: io.kestra.plugin.core.log.Log, message: "{{ trigger.date }}" }
triggers:
  - { id: tick, type: io.kestra.plugin.core.trigger.Schedule, cron: "* * * * * *", withSeconds: true }
`;
}

describe('two scheduler processes', () => {
  const name = `lanner_two_schedulers_${run}`;
  let repositories: Repositories;
  let databaseUrl = '';
  const schedulers: SchedulerProcess[] = [];

  beforeAll(async () => {
    await onServer(`CREATE DATABASE ${name}`);
    const url = new URL(process.env['DATABASE_URL'] ?? '');
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    await applyMigrations(databaseUrl);
    repositories = await openRepositories(url.toString(), { poolSize: 4 });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: url.toString(),
      LANNER_KAFKA_NAMESPACE: `spec-schedulers-${run}.`,
      LANNER_LOG_LEVEL: 'info',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
    };
    for (const schedulerName of ['scheduler-a', 'scheduler-b']) {
      schedulers.push(new SchedulerProcess(schedulerName, await freePort(), env));
    }
    await Promise.all(schedulers.map((scheduler) => scheduler.ready()));
  });

  afterAll(async () => {
    await Promise.all(schedulers.map((scheduler) => scheduler.stop('SIGTERM')));
    await repositories?.close();
    await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it(`${FLOWS} every-second schedules for ${RUN_MS / 1000} s: each date once, through a kill -9 of one scheduler`, async () => {
    const firstCreated = Date.now();
    for (let index = 0; index < FLOWS; index++) {
      const parsed = parseFlow(flowSource(index));
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
      await repositories.flows.create('main', {
        namespace: 'spec.schedulers',
        flowId: parsed.flow.id,
        source: flowSource(index),
        definition: JSON.parse(JSON.stringify(parsed.flow)),
      });
    }
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    // Waits (a bounded while) until every flow has fired a date at or after `date`, however far
    // behind a loaded machine runs the schedulers; the assertions below say what was missed.
    const untilEveryFlowFired = async (date: Date): Promise<void> => {
      const giveUpAt = Date.now() + RUN_MS * 4;
      for (;;) {
        const { rows } = await client.query<{ flows: string }>(
          `SELECT count(*) AS flows FROM (SELECT flow_id FROM executions GROUP BY flow_id
             HAVING max((trigger->'variables'->>'date')::timestamptz) >= $1) AS fired`,
          [date],
        );
        if (Number(rows[0].flows) === FLOWS || Date.now() > giveUpAt) return;
        await new Promise((done) => setTimeout(done, 500));
      }
    };
    try {
      await new Promise((done) => setTimeout(done, RUN_MS / 3));
      await untilEveryFlowFired(new Date(firstCreated));
      const killed = Date.now();
      await schedulers[0].stop('SIGKILL');
      // The survivor fires every schedule well past the kill before the flows are deleted (the trigger rows go with them).
      const past = new Date(killed + (RUN_MS * 2) / 3);
      await untilEveryFlowFired(past);
      for (let index = 0; index < FLOWS; index++)
        await repositories.flows.softDelete('main', 'spec.schedulers', `every-second-${index}`);
      const lastDeleted = Date.now();

      const { rows } = await client.query<{
        flow_id: string;
        dates: string;
        distinct_dates: string;
        early: string;
        first: Date;
        last: Date;
      }>(`
        SELECT flow_id, count(*) AS dates, count(DISTINCT trigger->'variables'->>'date') AS distinct_dates,
          count(*) FILTER (WHERE created_at < (trigger->'variables'->>'date')::timestamptz) AS early,
          min((trigger->'variables'->>'date')::timestamptz) AS first, max((trigger->'variables'->>'date')::timestamptz) AS last
        FROM executions GROUP BY flow_id`);
      expect(rows).toHaveLength(FLOWS);
      // At most one date per second of a flow's life (all created before the first, deleted after the last).
      const most = Math.ceil((lastDeleted - firstCreated) / 1000) + 1;
      for (const row of rows) {
        // No duplicate: one execution per (trigger, date).
        expect(Number(row.distinct_dates)).toBe(Number(row.dates));
        // Claimed ahead, but never created before its date.
        expect(Number(row.early)).toBe(0);
        // No gap: every second between the first and the last date fired, the kill included.
        expect(Number(row.dates)).toBe((row.last.getTime() - row.first.getTime()) / 1000 + 1);
        // Fired before the kill and long after it: the gapless run spans the kill.
        expect(row.first.getTime()).toBeLessThan(killed);
        expect(row.last.getTime()).toBeGreaterThanOrEqual(past.getTime());
        expect(Number(row.dates)).toBeLessThanOrEqual(most);
      }
    } finally {
      await client.end();
    }
    expect(schedulers[1].child.exitCode).toBeNull();
  });
});
