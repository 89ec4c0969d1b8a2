import { DuplicateWorkerQueueId, WorkerQueueIndex } from '../index';
import { queue } from './routing-fixtures';

describe('worker selector: the reserved queues are never matched by tags', () => {
  it('system is served only by the platform, even when it carries the asked tag', () => {
    const index = WorkerQueueIndex.build([queue('system', ['internal']), queue('default', ['any'])]);
    expect(index.match(['internal'], 'ALL', 'main')).toBeUndefined();
    expect(index.match(['any'], 'ANY', 'main')).toBeUndefined();
    expect(index.get('system')?.id).toBe('system');
  });

  it('a queue list naming one id twice is refused', () => {
    expect(() => WorkerQueueIndex.build([queue('gpu', ['gpu']), queue('gpu', ['cuda'])])).toThrow(DuplicateWorkerQueueId);
  });
});
