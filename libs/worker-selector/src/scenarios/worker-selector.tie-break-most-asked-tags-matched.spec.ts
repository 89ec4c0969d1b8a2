import { WorkerQueueIndex } from '../index';
import { queue } from './routing-fixtures';

describe('worker selector tie-break 2: with as many unasked tags, the most asked-for tags matched wins', () => {
  it('ANY: the queue covering two asked tags beats the one covering one', () => {
    const index = WorkerQueueIndex.build([queue('a-one', ['gpu', 'x']), queue('z-two', ['gpu', 'eu', 'x'])]);
    expect(index.match(['gpu', 'eu', 'linux'], 'ANY', 'main')?.id).toBe('z-two');
  });
});
