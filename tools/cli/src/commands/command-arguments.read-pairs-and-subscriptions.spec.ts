import { CliError } from '../client/cli-error';
import { exitCodeOf, pairsOf } from './execution-command';
import { subscriptionOf } from './topology-command';

describe('command arguments', () => {
  it('reads key=value pairs, keeping any = in the value', () => {
    expect(pairsOf(['name=lanner', 'query=a=b'], '--input')).toEqual({ name: 'lanner', query: 'a=b' });
  });

  it('refuses a pair without a key, naming the flag (usage error, exit 2)', () => {
    expect(() => pairsOf(['=x'], '--input')).toThrow(new CliError("--input '=x' must be key=value", 2));
    expect(() => pairsOf(['novalue'], '--label')).toThrow("--label 'novalue' must be key=value");
  });

  it('reads queue[:percent][:mode] subscriptions', () => {
    expect(subscriptionOf('gpu')).toEqual({ workerQueueId: 'gpu' });
    expect(subscriptionOf('gpu:30')).toEqual({ workerQueueId: 'gpu', reservedPercent: 30 });
    expect(subscriptionOf('gpu:30:elastic')).toEqual({ workerQueueId: 'gpu', reservedPercent: 30, mode: 'ELASTIC' });
    expect(subscriptionOf('gpu:STRICT')).toEqual({ workerQueueId: 'gpu', mode: 'STRICT' });
  });

  it('succeeds only for a SUCCESS execution', () => {
    expect(exitCodeOf('SUCCESS')).toBe(0);
    for (const state of ['FAILED', 'KILLED', 'WARNING', 'CANCELLED']) expect(exitCodeOf(state)).toBe(1);
  });
});
