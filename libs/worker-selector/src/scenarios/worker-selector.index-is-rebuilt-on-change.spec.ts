import { WorkerQueueIndex, WorkerQueueResolver } from '../index';
import { fleet, queue } from './routing-fixtures';

describe('worker selector: a topology change takes effect through a rebuilt index', () => {
  it('a queue created later is matched by a resolver built on the new index; the old one is unchanged', () => {
    const before = [queue('gpu', ['gpu', 'linux'])];
    const after = [...before, queue('gpu-only', ['gpu'])];
    const available = fleet({ gpu: 1, 'gpu-only': 1 });
    const oldResolver = new WorkerQueueResolver(WorkerQueueIndex.build(before));
    const newResolver = new WorkerQueueResolver(WorkerQueueIndex.build(after));
    expect(oldResolver.resolve({ tags: ['gpu'] }, { tenant: 'main' }, available).queueId).toBe('gpu');
    expect(newResolver.resolve({ tags: ['gpu'] }, { tenant: 'main' }, available).queueId).toBe('gpu-only');
  });

  it('the index does not change when the caller mutates the list it was built from', () => {
    const queues = [queue('gpu', ['gpu'])];
    const index = WorkerQueueIndex.build(queues);
    queues.push(queue('eu', ['eu']));
    expect(index.match(['eu'], 'ALL', 'main')).toBeUndefined();
    expect(index.size).toBe(1);
  });
});
