import { problemsOf, validate } from './setup-fixtures';

describe('topology: two declared queues may not have the same tag set', () => {
  it('points at the later queue and names the earlier one', () => {
    const setup = {
      workerQueues: [
        { id: 'gpu', tags: ['gpu', 'eu'] },
        { id: 'etl', tags: ['etl'] },
        { id: 'gpu-eu', tags: ['eu', 'gpu'] },
      ],
    };
    expect(problemsOf(validate(setup))).toEqual([
      { path: 'setup.workerQueues[2].tags', message: 'has the same tags as setup.workerQueues[0]' },
    ]);
  });
});
