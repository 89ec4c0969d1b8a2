import type { Flow } from './flow.types';
import { readFlow } from './spec-helpers';

// The example flow of FLOWS.md, verbatim.
const EXAMPLE = `
id: nightly-report              # [a-zA-Z0-9][a-zA-Z0-9._-]*
namespace: company.team         # dot-separated
labels: { team: data }
inputs:
  - { id: region, type: STRING, defaults: eu, required: false }
variables: { bucket: reports }
concurrency: { limit: 2, behavior: QUEUE }   # QUEUE | CANCEL | FAIL
workerSelector: { tags: [linux] }            # flow-level default for its tasks
tasks:
  - id: build
    type: io.kestra.plugin.scripts.shell.Commands
    commands: [ "make report REGION={{ inputs.region }}" ]
    workerSelector: { tags: [gpu, "{{ inputs.region }}"], match: ALL, fallback: WAIT }
    retry: { type: exponential, interval: PT1S, maxInterval: PT30S, maxAttempts: 5 }
    timeout: PT10M
  - id: fan-out
    type: io.kestra.plugin.core.flow.ForEach
    values: ["a", "b", "c"]
    concurrencyLimit: 2
    tasks:
      - { id: say, type: io.kestra.plugin.core.log.Log, message: "{{ taskrun.value }}" }
errors:
  - { id: alert, type: io.kestra.plugin.core.log.Log, level: ERROR, message: "failed" }
finally:
  - { id: cleanup, type: io.kestra.plugin.core.log.Log, message: "done" }
outputs:
  - { id: report, type: STRING, value: "{{ outputs.build.vars.path }}" }
triggers:
  - { id: nightly, type: io.kestra.plugin.core.trigger.Schedule, cron: "0 2 * * *" }
`;

const logDefaults = {
  disabled: false,
  allowFailure: false,
  allowWarning: false,
  type: 'io.kestra.plugin.core.log.Log',
  kind: 'Log',
} as const;

describe('parseFlow reads the example flow of FLOWS.md', () => {
  it('into the expected model, templates verbatim and durations in milliseconds', () => {
    const expected: Flow = {
      id: 'nightly-report',
      namespace: 'company.team',
      labels: { team: 'data' },
      inputs: [{ id: 'region', type: 'STRING', defaults: 'eu', required: false }],
      variables: { bucket: 'reports' },
      concurrency: { limit: 2, behavior: 'QUEUE' },
      workerSelector: { tags: ['linux'], match: 'ALL' },
      tasks: [
        {
          id: 'build',
          type: 'io.kestra.plugin.scripts.shell.Commands',
          kind: 'ShellCommands',
          disabled: false,
          allowFailure: false,
          allowWarning: false,
          commands: ['make report REGION={{ inputs.region }}'],
          workerSelector: { tags: ['gpu', '{{ inputs.region }}'], match: 'ALL', fallback: 'WAIT' },
          retry: {
            type: 'exponential',
            intervalMs: 1000,
            maxIntervalMs: 30_000,
            maxAttempts: 5,
            behavior: 'RETRY_FAILED_TASK',
            warningOnRetry: false,
          },
          timeoutMs: 600_000,
        },
        {
          id: 'fan-out',
          type: 'io.kestra.plugin.core.flow.ForEach',
          kind: 'ForEach',
          disabled: false,
          allowFailure: false,
          allowWarning: false,
          values: ['a', 'b', 'c'],
          concurrencyLimit: 2,
          tasks: [{ ...logDefaults, id: 'say', message: '{{ taskrun.value }}', level: 'INFO' }],
        },
      ],
      errors: [{ ...logDefaults, id: 'alert', message: 'failed', level: 'ERROR' }],
      finally: [{ ...logDefaults, id: 'cleanup', message: 'done', level: 'INFO' }],
      outputs: [{ id: 'report', type: 'STRING', value: '{{ outputs.build.vars.path }}' }],
      triggers: [
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
      ],
      disabled: false,
    };
    expect(readFlow(EXAMPLE)).toEqual(expected);
  });
});
