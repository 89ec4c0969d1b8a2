import { parseIsoDuration } from './iso-duration';
import { flowWithTasks, messagesOf, onlyTask } from './spec-helpers';

describe('ISO-8601 durations are read as milliseconds', () => {
  it.each([
    ['PT1S', 1000],
    ['PT10M', 600_000],
    ['P1D', 86_400_000],
    ['PT0.5S', 500],
    ['PT1H30M', 5_400_000],
    ['P1DT2H', 93_600_000],
    ['pt2m', 120_000],
    ['PT0S', 0],
  ])('%s is %d ms', (text, ms) => {
    expect(parseIsoDuration(text)).toBe(ms);
  });

  it.each(['', 'P', 'PT', 'P1DT', '10 minutes', 'PT-1S', 'P1Y', 'P1M', 'P1W', 'PT1.5M', '1S', `P${'9'.repeat(20)}D`])(
    'refuses %j',
    (text) => {
      expect(parseIsoDuration(text)).toBeUndefined();
    },
  );

  it('converts a task timeout and a Sleep duration', () => {
    const task = onlyTask('  - { id: nap, type: io.kestra.plugin.core.flow.Sleep, duration: PT0.5S, timeout: PT1M }\n');
    expect(task).toMatchObject({ kind: 'Sleep', durationMs: 500, timeoutMs: 60_000 });
  });

  it('reports a duration that is not ISO-8601 (numbers included)', () => {
    expect(
      messagesOf(flowWithTasks('  - { id: nap, type: io.kestra.plugin.core.flow.Sleep, duration: 5, timeout: 10 minutes }\n')),
    ).toEqual([
      'tasks[0].duration: must be an ISO-8601 duration such as PT30S, PT10M or P1D',
      'tasks[0].timeout: must be an ISO-8601 duration such as PT30S, PT10M or P1D',
    ]);
  });

  it('refuses a zero timeout', () => {
    expect(messagesOf(flowWithTasks('  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi, timeout: PT0S }\n'))).toEqual(
      ['tasks[0].timeout: must be longer than zero'],
    );
  });
});
