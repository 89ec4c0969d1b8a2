import { problemsOf, validate } from './setup-fixtures';

describe('topology: a tag set holds each tag once', () => {
  it('points at the repeated tag', () => {
    expect(problemsOf(validate({ workerQueues: [{ id: 'gpu', tags: ['gpu', 'linux', 'gpu'] }] }))).toEqual([
      { path: 'setup.workerQueues[0].tags[2]', message: "repeats the tag 'gpu'" },
    ]);
  });
});
