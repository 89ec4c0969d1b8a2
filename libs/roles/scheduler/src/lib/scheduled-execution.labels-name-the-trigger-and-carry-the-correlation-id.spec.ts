import { parseFlow, type ScheduleTrigger } from '@lanner/model';
import { scheduledExecution } from './scheduled-execution';

const SOURCE = `
id: nightly
namespace: company.team
labels: { team: data }
inputs:
  - { id: region, type: STRING, defaults: eu }
tasks:
  - { id: hello, type: io.kestra.plugin.core.log.Log, message: "{{ trigger.date }}" }
triggers:
  - id: every-night
    type: io.kestra.plugin.core.trigger.Schedule
    cron: "0 2 * * *"
    inputs: { region: us }
`;

describe('the execution a schedule firing creates', () => {
  const parsed = parseFlow(SOURCE);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const flow = parsed.flow;
  const trigger = flow.triggers[0] as ScheduleTrigger;
  const date = new Date('2026-12-03T02:00:00Z');

  it("carries the flow's labels, one naming the trigger, and its own id as the correlation id, as every execution does", () => {
    const made = scheduledExecution(flow, 3, trigger, { date }, 'exec-1', date);
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(made.execution.labels).toEqual({ team: 'data', 'system.triggerId': 'every-night', 'system.correlationId': 'exec-1' });
    expect(made.execution).toMatchObject({ flowRevision: 3, inputs: { region: 'us' }, trigger: { id: 'every-night' } });
  });
});

describe('trigger.date, trigger.next and trigger.previous of a schedule', () => {
  function variables(timezone: string, firing: { date: Date; next?: Date; previous?: Date }) {
    const parsed = parseFlow(SOURCE.replace('cron: "0 2 * * *"', `cron: "0 2 * * *"\n    timezone: ${timezone}`));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const made = scheduledExecution(parsed.flow, 1, parsed.flow.triggers[0] as ScheduleTrigger, firing, 'e', firing.date);
    if (!made.ok) throw new Error(made.reason);
    return (made.execution.trigger as { variables?: unknown } | undefined)?.variables;
  }

  it('are written with the offset of the time zone, across a change of summer time', () => {
    expect(
      variables('Europe/Paris', {
        date: new Date('2026-03-29T00:00:00Z'),
        previous: new Date('2026-03-28T01:00:00Z'),
        next: new Date('2026-03-30T00:00:00Z'),
      }),
    ).toEqual({
      date: '2026-03-29T01:00:00.000+01:00',
      previous: '2026-03-28T02:00:00.000+01:00',
      next: '2026-03-30T02:00:00.000+02:00',
    });
    expect(variables('America/St_Johns', { date: new Date('2026-01-15T05:30:00Z') })).toEqual({
      date: '2026-01-15T02:00:00.000-03:30',
    });
  });

  it('end in Z in UTC', () => {
    expect(variables('Etc/UTC', { date: new Date('2026-12-03T02:00:00Z') })).toEqual({ date: '2026-12-03T02:00:00.000Z' });
  });
});
