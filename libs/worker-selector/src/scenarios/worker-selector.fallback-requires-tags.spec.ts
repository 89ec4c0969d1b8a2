import { InvalidWorkerSelector, validateWorkerSelector } from '../index';
import { fleet, queue, resolverFor } from './routing-fixtures';

describe('worker selector: fallback may only be set when tags is not empty', () => {
  it('reports the fallback of a selector without tags, with its path', () => {
    expect(validateWorkerSelector({ tags: [], fallback: 'WAIT' }, 'tasks[2].workerSelector')).toEqual([
      { path: 'tasks[2].workerSelector.fallback', message: 'may only be set when tags is not empty' },
    ]);
  });

  it('accepts a fallback next to tags, and no fallback without tags', () => {
    expect(validateWorkerSelector({ tags: ['gpu'], match: 'ANY', fallback: 'IGNORE' })).toEqual([]);
    expect(validateWorkerSelector({ tags: [] })).toEqual([]);
  });

  it('reports unknown values, wrong types and unknown fields, all at once', () => {
    expect(validateWorkerSelector({ tags: ['gpu', 3], match: 'SOME', fallback: 'RETRY', group: 'x' })).toEqual([
      { path: 'group', message: 'is not a known field of a worker selector' },
      { path: 'tags[1]', message: 'must be a string' },
      { path: 'match', message: 'must be one of ALL, ANY' },
      { path: 'fallback', message: 'must be one of FAIL, WAIT, CANCEL, IGNORE' },
    ]);
  });

  it('the resolver fails a task run whose selector is invalid instead of guessing', () => {
    const decision = resolverFor([queue('gpu', ['gpu'])]).resolve(
      { tags: [], fallback: 'CANCEL' },
      { tenant: 'main' },
      fleet({}),
    );
    expect(decision).toMatchObject({ action: 'FAIL', cause: 'INVALID_SELECTOR', queueId: null });
    expect(decision.reason).toContain('fallback may only be set when tags is not empty');
  });

  it('the domain error carries every problem', () => {
    const problems = validateWorkerSelector({ tags: [], fallback: 'FAIL' });
    expect(new InvalidWorkerSelector(problems).problems).toEqual(problems);
  });
});
