import { WorkerQueueIndex } from '../index';
import { queue } from './routing-fixtures';

describe('worker selector tie-break 1: the queue with the fewest tags not asked for wins', () => {
  it('ALL: the tighter queue wins over a broader one carrying extra tags', () => {
    const index = WorkerQueueIndex.build([
      queue('a-broad', ['gpu', 'eu', 'linux', 'ssd']),
      queue('z-tight', ['gpu', 'eu']),
      queue('m-middle', ['gpu', 'eu', 'linux']),
    ]);
    expect(index.match(['gpu', 'eu'], 'ALL', 'main')?.id).toBe('z-tight');
  });

  it('ANY: fewer unasked tags beats more matched tags', () => {
    // 'both' matches 2 asked tags but carries 2 unasked; 'only-gpu' matches 1 and carries none.
    const index = WorkerQueueIndex.build([queue('both', ['gpu', 'eu', 'x', 'y']), queue('only-gpu', ['gpu'])]);
    expect(index.match(['gpu', 'eu'], 'ANY', 'main')?.id).toBe('only-gpu');
  });
});
