import { problemsOf, readFlow } from './spec-helpers';

const task = 'tasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n';

describe('parseFlow refuses system labels', () => {
  it('refuses a flow label with the system. prefix, naming it at labels', () => {
    const problems = problemsOf(`id: f\nnamespace: n\nlabels:\n  team: data\n  system.correlationId: mine\n${task}`);
    expect(problems).toEqual([
      expect.objectContaining({
        path: 'labels',
        message: "'system.correlationId': labels starting with system. are set by Lanner, not by a flow or a user",
        line: 4,
      }),
    ]);
  });

  it('keeps other labels, a key merely containing "system" included', () => {
    expect(readFlow(`id: f\nnamespace: n\nlabels: { team: data, mysystem.x: y }\n${task}`).labels).toEqual({
      team: 'data',
      'mysystem.x': 'y',
    });
  });
});
