import { WorkerQueueIndex } from '../index';
import { queue } from './routing-fixtures';

describe('worker selector: ALL picks a queue whose tag set contains every selector tag', () => {
  const index = WorkerQueueIndex.build([queue('gpu', ['gpu']), queue('gpu-linux', ['gpu', 'linux']), queue('eu', ['eu'])]);

  it('matches a queue carrying every asked tag', () => {
    expect(index.match(['linux', 'gpu'], 'ALL', 'main')?.id).toBe('gpu-linux');
  });

  it('does not match a queue that lacks one of the asked tags', () => {
    expect(index.match(['gpu', 'eu'], 'ALL', 'main')).toBeUndefined();
  });

  it('matches a queue with more tags than asked', () => {
    expect(index.match(['linux'], 'ALL', 'main')?.id).toBe('gpu-linux');
  });

  it('is the default match mode', () => {
    expect(WorkerQueueIndex.build([queue('eu', ['eu'])]).match(['eu', 'gpu'], 'ALL', 'main')).toBeUndefined();
  });
});
