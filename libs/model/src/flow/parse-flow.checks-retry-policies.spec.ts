import { flowWithTasks, messagesOf, onlyTask } from './spec-helpers';

const withRetry = (retry: string): string =>
  `  - id: call
    type: io.kestra.plugin.core.http.Request
    uri: https://example.com
    retry: ${retry}
`;

describe('parseFlow checks retry policies', () => {
  it('reads a constant retry with Kestra’s defaults', () => {
    expect(onlyTask(withRetry('{ type: constant, interval: PT5S, maxAttempts: 3 }')).retry).toEqual({
      type: 'constant',
      intervalMs: 5000,
      maxAttempts: 3,
      behavior: 'RETRY_FAILED_TASK',
      warningOnRetry: false,
    });
  });

  it('reads an exponential retry', () => {
    expect(
      onlyTask(
        withRetry(
          '{ type: exponential, interval: PT1S, maxInterval: PT1M, delayFactor: 2, maxDuration: PT1H, behavior: CREATE_NEW_EXECUTION, warningOnRetry: true }',
        ),
      ).retry,
    ).toEqual({
      type: 'exponential',
      intervalMs: 1000,
      maxIntervalMs: 60_000,
      delayFactor: 2,
      maxDurationMs: 3_600_000,
      behavior: 'CREATE_NEW_EXECUTION',
      warningOnRetry: true,
    });
  });

  it('reads a random retry', () => {
    expect(onlyTask(withRetry('{ type: random, minInterval: PT1S, maxInterval: PT3S, maxAttempts: 2 }')).retry).toEqual({
      type: 'random',
      minIntervalMs: 1000,
      maxIntervalMs: 3000,
      maxAttempts: 2,
      behavior: 'RETRY_FAILED_TASK',
      warningOnRetry: false,
    });
  });

  it.each([
    ['{ interval: PT1S }', ['tasks[0].retry.type: required']],
    ['{ type: linear, interval: PT1S }', ['tasks[0].retry.type: must be one of constant, exponential, random']],
    ['{ type: constant, maxAttempts: 3 }', ['tasks[0].retry.interval: required']],
    ['{ type: constant, interval: PT1S, maxAttempts: 0 }', ['tasks[0].retry.maxAttempts: must be >= 1']],
    ['{ type: constant, interval: PT1S, maxAttempts: 1.5 }', ['tasks[0].retry.maxAttempts: must be an integer']],
    ['{ type: exponential, interval: PT1S }', ['tasks[0].retry.maxInterval: required']],
    ['{ type: exponential, interval: PT1M, maxInterval: PT1S }', ['tasks[0].retry.maxInterval: must be >= interval']],
    ['{ type: random, maxInterval: PT1S }', ['tasks[0].retry.minInterval: required']],
    ['{ type: random, minInterval: PT1S }', ['tasks[0].retry.maxInterval: required']],
    [
      '{ type: constant, interval: PT1S, behavior: AGAIN }',
      ['tasks[0].retry.behavior: must be one of RETRY_FAILED_TASK, CREATE_NEW_EXECUTION'],
    ],
    ['3', ['tasks[0].retry: must be a mapping']],
  ])('retry %s is refused', (retry, expected) => {
    expect(messagesOf(flowWithTasks(withRetry(retry)))).toEqual(expected);
  });
});
