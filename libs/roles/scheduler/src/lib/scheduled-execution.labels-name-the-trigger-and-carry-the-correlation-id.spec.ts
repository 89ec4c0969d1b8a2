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
