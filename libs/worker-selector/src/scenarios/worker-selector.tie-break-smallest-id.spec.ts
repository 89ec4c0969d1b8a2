import { WorkerQueueIndex } from '../index';
import { queue } from './routing-fixtures';

describe('worker selector tie-break 3: otherwise the smallest id wins', () => {
  it('ALL: equal candidates resolve to the smallest id, whatever the declaration order', () => {
    const queues = [queue('gpu-b', ['gpu', 'x']), queue('gpu-a', ['gpu', 'y']), queue('gpu-c', ['gpu', 'z'])];
    expect(WorkerQueueIndex.build(queues).match(['gpu'], 'ALL', 'main')?.id).toBe('gpu-a');
    expect(WorkerQueueIndex.build([...queues].reverse()).match(['gpu'], 'ALL', 'main')?.id).toBe('gpu-a');
  });

  it('ANY: equal candidates reached through different tags resolve to the smallest id', () => {
    const index = WorkerQueueIndex.build([queue('q2', ['eu']), queue('q10', ['gpu'])]);
    // Code-unit order: 'q10' < 'q2'.
    expect(index.match(['eu', 'gpu'], 'ANY', 'main')?.id).toBe('q10');
  });
});
