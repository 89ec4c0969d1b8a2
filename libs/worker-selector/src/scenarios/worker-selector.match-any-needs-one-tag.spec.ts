import { WorkerQueueIndex } from '../index';
import { fleet, queue, resolverFor } from './routing-fixtures';

describe('worker selector: ANY picks a queue whose tag set contains at least one selector tag', () => {
  const queues = [queue('gpu', ['gpu', 'linux']), queue('eu', ['eu', 'linux', 'ssd'])];
  const index = WorkerQueueIndex.build(queues);

  it('matches a queue sharing a single tag', () => {
    expect(index.match(['eu', 'arm'], 'ANY', 'main')?.id).toBe('eu');
  });

  it('matches nothing when no queue shares a tag', () => {
    expect(index.match(['arm', 'windows'], 'ANY', 'main')).toBeUndefined();
  });

  it('is chosen with match: ANY on the selector', () => {
    const decision = resolverFor(queues).resolve({ tags: ['arm', 'gpu'], match: 'ANY' }, { tenant: 'main' }, fleet({ gpu: 1 }));
    expect(decision).toMatchObject({ action: 'DISPATCH', queueId: 'gpu' });
  });

  it('the same tags with the default ALL match nothing', () => {
    const decision = resolverFor(queues).resolve({ tags: ['arm', 'gpu'] }, { tenant: 'main' }, fleet({ gpu: 1 }));
    expect(decision).toMatchObject({ action: 'FAIL', cause: 'NO_QUEUE_MATCHES' });
  });
});
