import { WorkerQueueIndex } from '../index';
import { fleet, queue, resolverFor } from './routing-fixtures';

describe("worker selector: a queue whose allowedTenants exclude the execution's tenant never matches", () => {
  const queues = [queue('gpu-acme', ['gpu'], ['acme']), queue('gpu-shared', ['gpu', 'shared'])];
  const index = WorkerQueueIndex.build(queues);

  it('the restricted queue serves its tenant', () => {
    expect(index.match(['gpu'], 'ALL', 'acme')?.id).toBe('gpu-acme');
  });

  it('another tenant falls through to the next best unrestricted queue', () => {
    expect(index.match(['gpu'], 'ALL', 'globex')?.id).toBe('gpu-shared');
    expect(index.match(['gpu', 'eu'], 'ANY', 'globex')?.id).toBe('gpu-shared');
  });

  it('with no allowed queue left, the task run fails with the tenant named', () => {
    const decision = resolverFor([queues[0]]).resolve({ tags: ['gpu'] }, { tenant: 'globex' }, fleet({ 'gpu-acme': 3 }));
    expect(decision).toMatchObject({ action: 'FAIL', cause: 'NO_QUEUE_MATCHES' });
    expect(decision.reason).toBe("no worker queue matches the tags [gpu] (match ALL) for tenant 'globex'");
  });

  it('an empty allowedTenants list is unrestricted', () => {
    expect(WorkerQueueIndex.build([queue('eu', ['eu'], [])]).match(['eu'], 'ALL', 'anyone')?.id).toBe('eu');
  });
});
