import { flowWithTasks, messagesOf, onlyTask } from './spec-helpers';

describe("parseFlow reads script tasks' namespaceFiles", () => {
  it('enabled by default once written, with include and exclude globs', () => {
    expect(
      onlyTask(
        '  - id: s\n    type: io.kestra.plugin.scripts.shell.Commands\n    commands: [ls]\n    namespaceFiles:\n      include: ["scripts/**"]\n      exclude: ["*.md"]\n',
      ),
    ).toMatchObject({ namespaceFiles: { enabled: true, include: ['scripts/**'], exclude: ['*.md'] } });
    expect(
      onlyTask('  - { id: s, type: io.kestra.plugin.scripts.node.Script, script: x, namespaceFiles: { enabled: false } }\n'),
    ).toMatchObject({ namespaceFiles: { enabled: false } });
    expect(onlyTask('  - { id: s, type: io.kestra.plugin.scripts.shell.Commands, commands: [ls] }\n')).not.toHaveProperty(
      'namespaceFiles',
    );
  });

  it('names an unknown property of namespaceFiles', () => {
    expect(
      messagesOf(
        flowWithTasks(
          '  - { id: s, type: io.kestra.plugin.scripts.shell.Commands, commands: [ls], namespaceFiles: { enabled: true, includes: [a] } }\n',
        ),
      ),
    ).toEqual(["tasks[0].namespaceFiles.includes: unknown property 'includes' for namespaceFiles; did you mean 'include'?"]);
  });
});
