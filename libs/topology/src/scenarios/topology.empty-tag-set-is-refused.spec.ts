import { problemsOf, validate } from './setup-fixtures';

describe('topology: a worker queue needs at least one tag', () => {
  it.each([[[]], [undefined]])('refuses tags %j', (tags) => {
    expect(problemsOf(validate({ workerQueues: [{ id: 'gpu', tags }] }))).toEqual([
      { path: 'setup.workerQueues[0].tags', message: 'must hold at least one tag' },
    ]);
  });

  it('refuses blank tags and tags with surrounding whitespace (they could never match a rendered tag)', () => {
    expect(problemsOf(validate({ workerQueues: [{ id: 'gpu', tags: ['gpu', ' ', ' eu'] }] }))).toEqual([
      { path: 'setup.workerQueues[0].tags[1]', message: 'must be a non-blank string' },
      { path: 'setup.workerQueues[0].tags[2]', message: "' eu' must not start or end with whitespace" },
    ]);
  });
});
