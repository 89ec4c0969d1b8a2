import { DEFAULT_WORKER_QUEUE_ID } from '@lanner/model';
import { fleet, placeholderRenderer, queue, resolverFor } from './routing-fixtures';

describe('worker selector: with no tag left the task goes to the default queue', () => {
  const resolver = resolverFor([queue('gpu', ['gpu'])], placeholderRenderer);
  const available = fleet({ gpu: 2 });

  it('when every tag renders blank', () => {
    const decision = resolver.resolve(
      { tags: ['{{ inputs.region }}'], fallback: 'FAIL' },
      { tenant: 'main', variables: { inputs: { region: '' } } },
      available,
    );
    expect(decision).toMatchObject({ action: 'DISPATCH', queueId: DEFAULT_WORKER_QUEUE_ID, cause: 'NO_TAGS', tags: [] });
  });

  it('when the task has no selector at all', () => {
    expect(resolver.resolve(undefined, { tenant: 'main' }, available)).toMatchObject({
      action: 'DISPATCH',
      queueId: DEFAULT_WORKER_QUEUE_ID,
      cause: 'NO_TAGS',
    });
  });

  it('when the selector declares an empty tag list', () => {
    expect(resolver.resolve({ tags: [] }, { tenant: 'main' }, available)).toMatchObject({ queueId: DEFAULT_WORKER_QUEUE_ID });
  });
});
