import { problemsOf, validate } from './setup-fixtures';

describe('topology: every declared entity has an id, used once', () => {
  it('reports missing ids', () => {
    expect(problemsOf(validate({ workerQueues: [{ tags: ['gpu'] }], workerGroups: [{ name: 'GPU workers' }] }))).toEqual([
      { path: 'setup.workerQueues[0].id', message: 'is required' },
      { path: 'setup.workerGroups[0].id', message: 'is required' },
    ]);
  });

  it('reports a repeated id with the first declaration', () => {
    const setup = {
      workerQueues: [
        { id: 'gpu', tags: ['gpu'] },
        { id: 'gpu', tags: ['cuda'] },
      ],
      workerGroups: [{ id: 'w' }, { id: 'v' }, { id: 'w' }],
    };
    expect(problemsOf(validate(setup))).toEqual([
      { path: 'setup.workerQueues[1].id', message: "repeats the id 'gpu' of setup.workerQueues[0]" },
      { path: 'setup.workerGroups[2].id', message: "repeats the id 'w' of setup.workerGroups[0]" },
    ]);
  });
});
