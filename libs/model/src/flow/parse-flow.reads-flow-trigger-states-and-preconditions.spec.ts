import { messagesOf, readFlow } from './spec-helpers';

const withTrigger = (trigger: string): string =>
  `id: f\nnamespace: n\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\ntriggers:\n  - id: after\n    type: io.kestra.plugin.core.trigger.Flow\n${trigger}`;

describe('parseFlow reads a Flow trigger’s states and preconditions', () => {
  it('states, upstream flows, where filters, a time window and resetOnSuccess', () => {
    const flow = readFlow(
      withTrigger(`    states: [FAILED, WARNING]
    conditions:
      - type: io.kestra.plugin.core.condition.ExecutionLabels
        labels: { team: data }
      - type: io.kestra.plugin.core.condition.ExecutionOutputs
        expression: "{{ trigger.outputs.rows > 0 }}"
    preconditions:
      id: both
      resetOnSuccess: false
      timeWindow: { type: DURATION_WINDOW, window: PT6H, windowAdvance: PT3H }
      flows:
        - { namespace: company.team, flowId: extract, states: [SUCCESS], labels: { env: prod } }
        - { namespace: company.other }
      where:
        - id: company
          operand: OR
          filters:
            - { field: NAMESPACE, type: STARTS_WITH, value: company }
            - { field: STATE, type: IN, values: [FAILED] }
`),
    );
    expect(flow.triggers[0]).toMatchObject({
      kind: 'Flow',
      states: ['FAILED', 'WARNING'],
      conditions: [
        { kind: 'ExecutionLabels', labels: { team: 'data' } },
        { kind: 'ExecutionOutputs', expression: '{{ trigger.outputs.rows > 0 }}' },
      ],
      preconditions: {
        id: 'both',
        resetOnSuccess: false,
        timeWindow: { type: 'DURATION_WINDOW', windowMs: 6 * 3_600_000, advanceMs: 3 * 3_600_000 },
        flows: [
          { namespace: 'company.team', flowId: 'extract', states: ['SUCCESS'], labels: { env: 'prod' } },
          { namespace: 'company.other' },
        ],
        where: [
          {
            id: 'company',
            operand: 'OR',
            filters: [
              { field: 'NAMESPACE', type: 'STARTS_WITH', value: 'company' },
              { field: 'STATE', type: 'IN', values: ['FAILED'] },
            ],
          },
        ],
      },
    });
  });

  it('a one-day duration window and reset on success unless told otherwise; the daily windows in seconds of the day', () => {
    const plain = readFlow(withTrigger(`    preconditions: { id: p, flows: [{ namespace: a }] }\n`));
    expect(plain.triggers[0]).toMatchObject({
      preconditions: { resetOnSuccess: true, timeWindow: { type: 'DURATION_WINDOW', windowMs: 86_400_000, advanceMs: 0 } },
    });
    const deadline = readFlow(
      withTrigger(
        `    preconditions: { id: p, flows: [{ namespace: a }], timeWindow: { type: DAILY_TIME_DEADLINE, deadline: "09:00:00" } }\n`,
      ),
    );
    expect(deadline.triggers[0]).toMatchObject({
      preconditions: { timeWindow: { type: 'DAILY_TIME_DEADLINE', deadlineSecond: 9 * 3600 } },
    });
    const hours = readFlow(
      withTrigger(
        `    preconditions: { id: p, flows: [{ namespace: a }], timeWindow: { type: DAILY_TIME_WINDOW, startTime: "06:00", endTime: "09:30" } }\n`,
      ),
    );
    expect(hours.triggers[0]).toMatchObject({
      preconditions: { timeWindow: { type: 'DAILY_TIME_WINDOW', startSecond: 6 * 3600, endSecond: 9 * 3600 + 1800 } },
    });
  });

  it('names each mistake with its path', () => {
    expect(
      messagesOf(
        withTrigger(`    states: [RUNNING]
    preconditions:
      id: p
      timeWindow: { type: DAILY_TIME_WINDOW, startTime: "10:00", endTime: "09:00", window: PT1H }
      where:
        - id: w
          filters:
            - { field: COLOR, type: EQUAL_TO, value: red }
            - { field: FLOW_ID, type: IN }
            - { field: FLOW_ID, type: REGEX, value: "(" }
`),
      ),
    ).toEqual([
      "triggers[0].states[0]: 'RUNNING' is not a state an execution ends in; a Flow trigger is evaluated when an execution ends (SUCCESS, WARNING, FAILED, KILLED, CANCELLED, RETRIED)",
      'triggers[0].preconditions.timeWindow.endTime: must be later than startTime',
      "triggers[0].preconditions.timeWindow.window: unknown property 'window' for a time window of type DAILY_TIME_WINDOW",
      'triggers[0].preconditions.where[0].filters[0].field: must be one of FLOW_ID, NAMESPACE, STATE, EXPRESSION',
      'triggers[0].preconditions.where[0].filters[1].values: required with type IN',
      'triggers[0].preconditions.where[0].filters[2].value: must be a regular expression',
    ]);
  });

  it('requires something to meet', () => {
    expect(messagesOf(withTrigger(`    preconditions: { id: p }\n`))).toEqual([
      'triggers[0].preconditions.flows: set flows or where: the preconditions to meet',
    ]);
  });

  it('refuses a Flow trigger that asks for executions of its own flow (a flow never triggers itself)', () => {
    expect(
      messagesOf(
        withTrigger(`    conditions:
      - { type: io.kestra.plugin.core.condition.ExecutionFlow, namespace: n, flowId: f }
    preconditions: { id: p, flows: [{ namespace: n, flowId: other }, { namespace: n, flowId: f }] }
`),
      ),
    ).toEqual([
      'triggers[0].conditions[0]: names this flow (n.f): a flow never triggers itself',
      'triggers[0].preconditions.flows[1]: names this flow (n.f): a flow never triggers itself',
    ]);
  });
});
