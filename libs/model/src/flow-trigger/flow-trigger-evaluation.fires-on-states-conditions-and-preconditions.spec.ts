import { readFlow } from '../flow/spec-helpers';
import type { Flow, FlowTrigger } from '../flow/flow.types';
import {
  flowTriggerListens,
  metPreconditions,
  preconditionWindowAt,
  stepPreconditions,
  type PreconditionWindow,
  type UpstreamExecution,
} from './flow-trigger-evaluation';

const listenerWith = (trigger: string): { flow: Flow; trigger: FlowTrigger } => {
  const flow = readFlow(
    `id: listener\nnamespace: company.team\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\ntriggers:\n  - id: after\n    type: io.kestra.plugin.core.trigger.Flow\n${trigger}`,
  );
  return { flow, trigger: flow.triggers[0] as FlowTrigger };
};

const upstream = (overrides: Partial<UpstreamExecution> = {}): UpstreamExecution => ({
  id: 'e1',
  namespace: 'company.team',
  flowId: 'extract',
  flowRevision: 1,
  state: 'SUCCESS',
  labels: {},
  ...overrides,
});

const noRender = (template: string) => template;
const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('a Flow trigger listens to the executions that end in its states and meet its conditions', () => {
  it('every ended execution by default, but never one of its own flow', () => {
    const { flow, trigger } = listenerWith('    inputs: {}\n');
    for (const state of ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED'])
      expect(flowTriggerListens(flow, trigger, upstream({ state }), noRender)).toBe(true);
    expect(flowTriggerListens(flow, trigger, upstream({ flowId: 'listener' }), noRender)).toBe(false);
  });

  it('only the listed states', () => {
    const { flow, trigger } = listenerWith('    states: [SUCCESS]\n');
    expect(flowTriggerListens(flow, trigger, upstream({ state: 'SUCCESS' }), noRender)).toBe(true);
    expect(flowTriggerListens(flow, trigger, upstream({ state: 'FAILED' }), noRender)).toBe(false);
  });

  it('each condition: flow, status, namespace (prefix), labels, expression', () => {
    const { flow, trigger } = listenerWith(`    conditions:
      - { type: io.kestra.plugin.core.condition.ExecutionFlow, namespace: company.team, flowId: extract }
      - { type: io.kestra.plugin.core.condition.ExecutionStatus, notIn: [FAILED] }
      - { type: io.kestra.plugin.core.condition.ExecutionNamespace, namespace: company, prefix: true }
      - { type: io.kestra.plugin.core.condition.ExecutionLabels, labels: { env: prod } }
      - { type: io.kestra.plugin.core.condition.Expression, expression: "{{ ok }}" }
`);
    const render = (answer: string) => (template: string) => template.replace('{{ ok }}', answer);
    const good = upstream({ labels: { env: 'prod', other: 'x' } });
    expect(flowTriggerListens(flow, trigger, good, render('true'))).toBe(true);
    expect(flowTriggerListens(flow, trigger, good, render('false'))).toBe(false);
    expect(flowTriggerListens(flow, trigger, { ...good, flowId: 'load' }, render('true'))).toBe(false);
    expect(flowTriggerListens(flow, trigger, { ...good, state: 'FAILED' }, render('true'))).toBe(false);
    expect(flowTriggerListens(flow, trigger, { ...good, namespace: 'companyx' }, render('true'))).toBe(false);
    expect(flowTriggerListens(flow, trigger, { ...good, labels: { env: 'dev' } }, render('true'))).toBe(false);
  });

  it('an expression on the flow outputs is never met by an execution without outputs; blank or false is not met', () => {
    const { flow, trigger } = listenerWith(`    conditions:
      - { type: io.kestra.plugin.core.condition.ExecutionOutputs, expression: "{{ answer }}" }
`);
    const render = (answer: string) => (template: string) => template.replace('{{ answer }}', answer);
    const withOutputs = upstream({ outputs: { date: '2026-03-01' } });
    expect(flowTriggerListens(flow, trigger, withOutputs, render('true'))).toBe(true);
    expect(flowTriggerListens(flow, trigger, withOutputs, render('0'))).toBe(true);
    expect(flowTriggerListens(flow, trigger, withOutputs, render(' false '))).toBe(false);
    expect(flowTriggerListens(flow, trigger, withOutputs, render('  '))).toBe(false);
    expect(flowTriggerListens(flow, trigger, upstream(), render('true'))).toBe(false);
    expect(flowTriggerListens(flow, trigger, upstream({ outputs: {} }), render('true'))).toBe(false);
  });

  it('a disabled trigger listens to nothing', () => {
    const { flow, trigger } = listenerWith('    disabled: true\n');
    expect(flowTriggerListens(flow, trigger, upstream(), noRender)).toBe(false);
  });
});

describe('preconditions', () => {
  it('an upstream flow matches on namespace, flow id, states and labels; a where entry on its filters', () => {
    const { trigger } = listenerWith(`    preconditions:
      id: p
      flows:
        - { namespace: company.team, flowId: extract, states: [SUCCESS], labels: { env: prod } }
        - { namespace: company.team }
      where:
        - id: company
          filters:
            - { field: NAMESPACE, type: STARTS_WITH, value: company }
            - { field: FLOW_ID, type: REGEX, value: "ext.*" }
        - id: failed
          operand: OR
          filters:
            - { field: STATE, type: EQUAL_TO, value: FAILED }
            - { field: EXPRESSION, type: IS_TRUE, value: "{{ flag }}" }
`);
    const preconditions = trigger.preconditions!;
    const render = (template: string) => template.replace('{{ flag }}', 'false');
    expect(metPreconditions(preconditions, upstream({ labels: { env: 'prod' } }), render)).toEqual([
      'flows[0]',
      'flows[1]',
      'where.company',
    ]);
    expect(metPreconditions(preconditions, upstream({ state: 'FAILED' }), render)).toEqual([
      'flows[1]',
      'where.company',
      'where.failed',
    ]);
    // REGEX matches the whole field, as Kestra's does.
    expect(metPreconditions(preconditions, upstream({ flowId: 'reextract' }), render)).toEqual(['flows[1]']);
  });

  const two = listenerWith(`    preconditions:
      id: p
      timeWindow: { type: DURATION_WINDOW, window: PT6H }
      flows:
        - { namespace: company.team, flowId: a }
        - { namespace: company.team, flowId: b }
`).trigger.preconditions!;

  it('fire once every precondition is met within one window, then start again', () => {
    const first = stepPreconditions(two, undefined, ['flows[0]'], 'ea', at('2026-03-01T07:00:00Z'));
    expect(first.fire).toBe(false);
    expect(first.window).toEqual({
      start: at('2026-03-01T06:00:00Z'),
      end: at('2026-03-01T12:00:00Z') - 1,
      met: { 'flows[0]': 'ea' },
    });
    const second = stepPreconditions(two, first.window!, ['flows[1]'], 'eb', at('2026-03-01T11:59:00Z'));
    expect(second).toEqual({ fire: true, window: null });
    // After the reset, b alone is not enough.
    expect(stepPreconditions(two, undefined, ['flows[1]'], 'eb2', at('2026-03-01T11:59:30Z')).fire).toBe(false);
  });

  it('what was met in a past window does not count in the next one', () => {
    const first = stepPreconditions(two, undefined, ['flows[0]'], 'ea', at('2026-03-01T07:00:00Z'));
    const later = stepPreconditions(two, first.window!, ['flows[1]'], 'eb', at('2026-03-01T12:00:00Z'));
    expect(later.fire).toBe(false);
    expect(later.window?.met).toEqual({ 'flows[1]': 'eb' });
  });

  it('an execution that meets none changes nothing', () => {
    const first = stepPreconditions(two, undefined, ['flows[0]'], 'ea', at('2026-03-01T07:00:00Z'));
    expect(stepPreconditions(two, first.window!, [], 'ex', at('2026-03-01T08:00:00Z'))).toEqual({
      fire: false,
      window: first.window,
    });
  });

  it('resetOnSuccess: false fires again on each precondition met once all were', () => {
    const keep = { ...two, resetOnSuccess: false };
    const window: PreconditionWindow = {
      start: at('2026-03-01T06:00:00Z'),
      end: at('2026-03-01T12:00:00Z') - 1,
      met: { 'flows[0]': 'ea' },
    };
    const all = stepPreconditions(keep, window, ['flows[1]'], 'eb', at('2026-03-01T08:00:00Z'));
    expect(all.fire).toBe(true);
    expect(stepPreconditions(keep, all.window!, ['flows[0]'], 'ea2', at('2026-03-01T09:00:00Z')).fire).toBe(true);
  });

  it('a single precondition fires on each execution that meets it', () => {
    const one = listenerWith(`    preconditions: { id: p, flows: [{ namespace: company.team, flowId: a, states: [SUCCESS] }] }\n`)
      .trigger.preconditions!;
    expect(stepPreconditions(one, undefined, ['flows[0]'], 'e1', at('2026-03-01T07:00:00Z'))).toEqual({
      fire: true,
      window: null,
    });
    expect(stepPreconditions(one, undefined, ['flows[0]'], 'e2', at('2026-03-01T07:00:01Z'))).toEqual({
      fire: true,
      window: null,
    });
  });

  it('a daily deadline or daily hours: nothing counts outside them', () => {
    const deadline = listenerWith(
      `    preconditions: { id: p, flows: [{ namespace: a }], timeWindow: { type: DAILY_TIME_DEADLINE, deadline: "09:00:00" } }\n`,
    ).trigger.preconditions!;
    expect(stepPreconditions(deadline, undefined, ['flows[0]'], 'e', at('2026-03-01T08:59:00Z')).fire).toBe(true);
    expect(stepPreconditions(deadline, undefined, ['flows[0]'], 'e', at('2026-03-01T09:01:00Z')).fire).toBe(false);
    const hours = listenerWith(
      `    preconditions: { id: p, flows: [{ namespace: a }], timeWindow: { type: DAILY_TIME_WINDOW, startTime: "06:00", endTime: "09:00" } }\n`,
    ).trigger.preconditions!;
    expect(stepPreconditions(hours, undefined, ['flows[0]'], 'e', at('2026-03-01T05:59:00Z')).fire).toBe(false);
    expect(stepPreconditions(hours, undefined, ['flows[0]'], 'e', at('2026-03-01T06:30:00Z')).fire).toBe(true);
  });

  it('windows: duration ones follow each other from midnight (shifted by windowAdvance), a sliding one opens at the first match', () => {
    expect(
      preconditionWindowAt({ type: 'DURATION_WINDOW', windowMs: 6 * HOUR, advanceMs: 3 * HOUR }, at('2026-03-01T02:00:00Z')),
    ).toEqual({
      start: at('2026-02-28T21:00:00Z'),
      end: at('2026-03-01T03:00:00Z') - 1,
    });
    expect(preconditionWindowAt({ type: 'SLIDING_WINDOW', windowMs: HOUR }, at('2026-03-01T02:10:00Z'))).toEqual({
      start: at('2026-03-01T02:10:00Z'),
      end: at('2026-03-01T03:10:00Z'),
    });
  });
});
