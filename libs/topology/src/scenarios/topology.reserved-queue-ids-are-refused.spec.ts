import { checkWorkerQueueDeletion, validateWorkerQueueWrite } from '../index';
import { problemsOf, validate } from './setup-fixtures';

describe("topology: the reserved queue ids 'default' and 'system' cannot be created, changed or deleted", () => {
  it('refuses them in the declarative setup', () => {
    expect(
      problemsOf(
        validate({
          workerQueues: [
            { id: 'default', tags: ['x'] },
            { id: 'system', tags: ['y'] },
          ],
        }),
      ),
    ).toEqual([
      {
        path: 'setup.workerQueues[0].id',
        message: "'default' is a reserved worker queue id: it always exists and cannot be created, changed or deleted",
      },
      {
        path: 'setup.workerQueues[1].id',
        message: "'system' is a reserved worker queue id: it always exists and cannot be created, changed or deleted",
      },
    ]);
  });

  it('refuses a REST write to them', () => {
    expect(validateWorkerQueueWrite('system', { tags: ['internal'] }, [])).toEqual({
      ok: false,
      problems: [
        {
          path: 'id',
          message: "'system' is a reserved worker queue id: it always exists and cannot be created, changed or deleted",
        },
      ],
    });
  });

  it('refuses to delete them (a 403 at the edge)', () => {
    expect(checkWorkerQueueDeletion('default', [])).toMatchObject({ allowed: false, refusal: 'RESERVED' });
  });
});
