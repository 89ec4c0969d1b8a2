import { validateWorkerQueueWrite } from '../index';
import { existingQueues, problemsOf, validate } from './setup-fixtures';

describe('topology: two queues may not have the same tag set (collision with an existing queue)', () => {
  const existing = existingQueues({ id: 'gpu', tags: ['linux', 'gpu'], allowedTenants: [] });

  it('refuses a declared queue with the tag set of an existing one, whatever the order', () => {
    expect(problemsOf(validate({ workerQueues: [{ id: 'gpu-2', tags: ['gpu', 'linux'] }] }, existing))).toEqual([
      { path: 'setup.workerQueues[0].tags', message: "has the same tags as the existing worker queue 'gpu'" },
    ]);
  });

  it('a subset or superset is not a collision', () => {
    expect(
      validate(
        {
          workerQueues: [
            { id: 'gpu-2', tags: ['gpu'] },
            { id: 'gpu-3', tags: ['gpu', 'linux', 'eu'] },
          ],
        },
        existing,
      ).ok,
    ).toBe(true);
  });

  it('a declared queue whose id exists is skipped, so it cannot collide', () => {
    expect(validate({ workerQueues: [{ id: 'gpu', tags: ['gpu', 'linux'] }] }, existing).ok).toBe(true);
  });

  it('the REST API refuses the same collision, but not a queue rewriting its own tags', () => {
    const queues = existing.workerQueues;
    expect(validateWorkerQueueWrite('gpu-2', { tags: ['gpu', 'linux'] }, queues)).toEqual({
      ok: false,
      problems: [{ path: 'tags', message: "has the same tags as the worker queue 'gpu'" }],
    });
    expect(validateWorkerQueueWrite('gpu', { tags: ['gpu', 'linux'] }, queues).ok).toBe(true);
  });
});
