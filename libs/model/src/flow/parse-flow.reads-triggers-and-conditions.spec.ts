import { readFlow, messagesOf } from './spec-helpers';

const withTriggers = (triggers: string): string =>
  `id: f\nnamespace: n\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\ntriggers:\n${triggers}`;

describe('parseFlow reads triggers', () => {
  it('a Schedule, in UTC unless a time zone is given', () => {
    const flow = readFlow(
      withTriggers(`  - { id: nightly, type: io.kestra.plugin.core.trigger.Schedule, cron: "0 2 * * *" }
  - { id: paris, type: io.kestra.plugin.core.trigger.Schedule, cron: "@daily", timezone: Europe/Paris, inputs: { region: eu }, disabled: true }
`),
    );
    expect(flow.triggers).toEqual([
      {
        id: 'nightly',
        type: 'io.kestra.plugin.core.trigger.Schedule',
        kind: 'Schedule',
        disabled: false,
        cron: '0 2 * * *',
        timezone: 'Etc/UTC',
        withSeconds: false,
        recoverMissedSchedules: 'ALL',
        stopAfter: [],
        conditions: [],
      },
      {
        id: 'paris',
        type: 'io.kestra.plugin.core.trigger.Schedule',
        kind: 'Schedule',
        disabled: true,
        cron: '@daily',
        timezone: 'Europe/Paris',
        withSeconds: false,
        recoverMissedSchedules: 'ALL',
        stopAfter: [],
        conditions: [],
        inputs: { region: 'eu' },
      },
    ]);
  });

  it('refuses a bad cron expression or time zone', () => {
    expect(
      messagesOf(
        withTriggers(`  - { id: a, type: io.kestra.plugin.core.trigger.Schedule, cron: "0 2 * *" }
  - { id: b, type: io.kestra.plugin.core.trigger.Schedule, cron: "61 * * * *" }
  - { id: c, type: io.kestra.plugin.core.trigger.Schedule, cron: "*/0 * * * MON-XYZ" }
  - { id: d, type: io.kestra.plugin.core.trigger.Schedule, cron: "0 0 * * 1-5", timezone: Mars/Olympus }
  - { id: e, type: io.kestra.plugin.core.trigger.Schedule }
`),
      ),
    ).toEqual([
      'triggers[0].cron: must be a cron expression of 5 fields: minute hour day-of-month month day-of-week',
      "triggers[1].cron: minute field '61': must hold values from 0 to 59",
      "triggers[2].cron: minute field '*/0': step must be at least 1",
      "triggers[3].timezone: unknown time zone 'Mars/Olympus'",
      'triggers[4].cron: required',
    ]);
  });

  it('a Flow trigger with its conditions', () => {
    const flow = readFlow(
      withTriggers(`  - id: after-load
    type: io.kestra.plugin.core.trigger.Flow
    inputs: { upstream: "{{ trigger.executionId }}" }
    conditions:
      - { type: io.kestra.plugin.core.condition.ExecutionFlow, namespace: company.team, flowId: load }
      - { type: io.kestra.plugin.core.condition.ExecutionStatus, in: [SUCCESS, WARNING] }
      - { type: io.kestra.plugin.core.condition.ExecutionNamespace, namespace: company, prefix: true }
      - { type: io.kestra.plugin.core.condition.ExpressionCondition, expression: "{{ trigger.state == 'SUCCESS' }}" }
`),
    );
    expect(flow.triggers[0]).toEqual({
      id: 'after-load',
      type: 'io.kestra.plugin.core.trigger.Flow',
      kind: 'Flow',
      disabled: false,
      inputs: { upstream: '{{ trigger.executionId }}' },
      // Kestra's default: every state an execution ends in.
      states: ['SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'RETRIED'],
      conditions: [
        { kind: 'ExecutionFlow', namespace: 'company.team', flowId: 'load' },
        { kind: 'ExecutionStatus', in: ['SUCCESS', 'WARNING'] },
        { kind: 'ExecutionNamespace', namespace: 'company', prefix: true },
        { kind: 'Expression', expression: "{{ trigger.state == 'SUCCESS' }}" },
      ],
    });
  });

  it('refuses an execution state that does not exist', () => {
    expect(
      messagesOf(
        withTriggers(`  - id: t
    type: io.kestra.plugin.core.trigger.Flow
    conditions:
      - { type: io.kestra.plugin.core.condition.ExecutionStatus, notIn: [DONE] }
`),
      ),
    ).toEqual(["triggers[0].conditions[0].notIn[0]: unknown execution state 'DONE'"]);
  });

  it('a Webhook and an HTTP polling trigger (with Kestra’s defaults)', () => {
    const flow = readFlow(
      withTriggers(`  - { id: hook, type: io.kestra.plugin.core.trigger.Webhook, key: 4wjtkzwVGBM9yKnjm3yv8r }
  - { id: poll, type: io.kestra.plugin.core.http.Trigger, uri: "https://example.com/health" }
`),
    );
    expect(flow.triggers).toEqual([
      {
        id: 'hook',
        type: 'io.kestra.plugin.core.trigger.Webhook',
        kind: 'Webhook',
        disabled: false,
        key: '4wjtkzwVGBM9yKnjm3yv8r',
      },
      {
        id: 'poll',
        type: 'io.kestra.plugin.core.http.Trigger',
        kind: 'HttpPolling',
        disabled: false,
        uri: 'https://example.com/health',
        method: 'GET',
        intervalMs: 60_000,
        responseCondition: '{{ response.statusCode < 400 }}',
        stopAfter: [],
        allowConcurrent: false,
      },
    ]);
  });

  it('an HTTP polling trigger with its request, interval, stopAfter and workerSelector', () => {
    const flow = readFlow(
      withTriggers(`  - id: poll
    type: io.kestra.plugin.core.http.Trigger
    uri: "https://example.com/orders"
    method: POST
    headers: { x-team: ops }
    body: '{"since": 1}'
    contentType: application/json
    interval: PT5S
    responseCondition: "{{ response.body contains 'ready' }}"
    stopAfter: [SUCCESS]
    allowConcurrent: true
    conditions:
      - { type: io.kestra.plugin.core.condition.Weekend }
    workerSelector: { tags: [edge] }
`),
    );
    expect(flow.triggers).toEqual([
      {
        id: 'poll',
        type: 'io.kestra.plugin.core.http.Trigger',
        kind: 'HttpPolling',
        disabled: false,
        uri: 'https://example.com/orders',
        method: 'POST',
        headers: { 'x-team': 'ops' },
        body: '{"since": 1}',
        contentType: 'application/json',
        intervalMs: 5000,
        responseCondition: "{{ response.body contains 'ready' }}",
        stopAfter: ['SUCCESS'],
        allowConcurrent: true,
        conditions: [{ kind: 'Weekend' }],
        workerSelector: { tags: ['edge'], match: 'ALL' },
      },
    ]);
    expect(
      messagesOf(
        withTriggers(
          '  - { id: poll, type: io.kestra.plugin.core.http.Trigger, uri: "https://x", stopAfter: [DONE], every: PT1S }\n',
        ),
      ),
    ).toEqual(expect.arrayContaining(["triggers[0].stopAfter[0]: unknown execution state 'DONE'"]));
  });

  it('requires a Webhook key', () => {
    expect(messagesOf(withTriggers('  - { id: hook, type: io.kestra.plugin.core.trigger.Webhook }\n'))).toEqual([
      'triggers[0].key: required',
    ]);
  });
});

describe('parseFlow reads Schedule options and conditions', () => {
  it('a 6-field cron with withSeconds, recover mode, stopAfter and conditions', () => {
    const flow = readFlow(
      withTriggers(`  - id: every
    type: io.kestra.plugin.core.trigger.Schedule
    cron: "*/5 * * * * *"
    withSeconds: true
    recoverMissedSchedules: NONE
    stopAfter: [FAILED]
    conditions:
      - { type: io.kestra.plugin.core.condition.DayWeek, dayOfWeek: MONDAY }
      - { type: io.kestra.plugin.core.condition.DayWeekInMonth, dayOfWeek: FRIDAY, dayInMonth: LAST }
      - { type: io.kestra.plugin.core.condition.Weekend }
      - { type: io.kestra.plugin.core.condition.TimeBetween, after: "09:00", before: "17:30:00" }
      - { type: io.kestra.plugin.core.condition.DateTimeBetween, after: "2026-01-01T00:00:00+01:00" }
`),
    );
    expect(flow.triggers[0]).toEqual({
      id: 'every',
      type: 'io.kestra.plugin.core.trigger.Schedule',
      kind: 'Schedule',
      disabled: false,
      cron: '*/5 * * * * *',
      timezone: 'Etc/UTC',
      withSeconds: true,
      recoverMissedSchedules: 'NONE',
      stopAfter: ['FAILED'],
      conditions: [
        { kind: 'DayWeek', dayOfWeek: 'MONDAY' },
        { kind: 'DayWeekInMonth', dayOfWeek: 'FRIDAY', dayInMonth: 'LAST' },
        { kind: 'Weekend' },
        { kind: 'TimeBetween', after: '09:00', before: '17:30:00' },
        { kind: 'DateTimeBetween', after: '2026-01-01T00:00:00+01:00' },
      ],
    });
  });

  it('refuses 6 fields without withSeconds, 5 with it, and bad options', () => {
    expect(
      messagesOf(
        withTriggers(`  - { id: a, type: io.kestra.plugin.core.trigger.Schedule, cron: "* * * * * *" }
  - { id: b, type: io.kestra.plugin.core.trigger.Schedule, cron: "* * * * *", withSeconds: true }
  - { id: c, type: io.kestra.plugin.core.trigger.Schedule, cron: "* * * * *", recoverMissedSchedules: SOME }
  - { id: d, type: io.kestra.plugin.core.trigger.Schedule, cron: "* * * * *", stopAfter: [DONE] }
  - id: e
    type: io.kestra.plugin.core.trigger.Schedule
    cron: "* * * * *"
    conditions:
      - { type: io.kestra.plugin.core.condition.DayWeek, dayOfWeek: MONDAYS }
      - { type: io.kestra.plugin.core.condition.TimeBetween, after: "25:00" }
      - { type: io.kestra.plugin.core.condition.DateTimeBetween, before: "2026-01-01" }
      - { type: io.kestra.plugin.core.condition.PublicHoliday }
      - { type: io.kestra.plugin.core.condition.PublicHoliday, country: XX }
      - { type: io.kestra.plugin.core.condition.PublicHoliday, country: DE, subDivision: ZZ, date: "{{ now() }}" }
`),
      ),
    ).toEqual([
      'triggers[0].cron: must be a cron expression of 5 fields: minute hour day-of-month month day-of-week',
      'triggers[1].cron: must be a cron expression of 6 fields (withSeconds): second minute hour day-of-month month day-of-week',
      'triggers[2].recoverMissedSchedules: must be one of ALL, LAST, NONE',
      "triggers[3].stopAfter[0]: unknown execution state 'DONE'",
      'triggers[4].conditions[0].dayOfWeek: must be one of MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY, SUNDAY',
      'triggers[4].conditions[1].after: must be a time of day HH:MM or HH:MM:SS',
      'triggers[4].conditions[2].before: must be an ISO date-time with an offset, like 2026-01-31T09:00:00+01:00',
      'triggers[4].conditions[3].country: required',
      "triggers[4].conditions[4].country: unknown country 'XX' (an ISO 3166-1 alpha-2 code, like FR)",
      "triggers[4].conditions[5].subDivision: unknown subdivision 'ZZ' of DE (known: BB, BE, BW, BY, HB, HE, HH, MV, NI, NW, RP, SH...)",
      "triggers[4].conditions[5].date: only '{{ trigger.date }}' (the default) is supported: the schedule's date is tested",
    ]);
  });
});
