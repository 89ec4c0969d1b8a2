import { TASK_TYPES } from './flow.types';
import { flowWithTasks, messagesOf, onlyTask } from './spec-helpers';

const common = { disabled: false, allowFailure: false, allowWarning: false };

describe("parseFlow reads Kestra's core storage tasks", () => {
  it('Write with its content, the extension .ion unless given', () => {
    expect(onlyTask('  - { id: w, type: io.kestra.plugin.core.storage.Write, content: "{{ inputs.text }}" }\n')).toEqual({
      ...common,
      id: 'w',
      type: TASK_TYPES.StorageWrite,
      kind: 'StorageWrite',
      content: '{{ inputs.text }}',
      extension: '.ion',
    });
    expect(onlyTask('  - { id: w, type: io.kestra.plugin.core.storage.Write, content: a, extension: .csv }\n')).toMatchObject({
      extension: '.csv',
    });
  });

  it('Size and Delete with their uri, Delete not failing on a missing file unless errorOnMissing', () => {
    expect(onlyTask('  - { id: s, type: io.kestra.plugin.core.storage.Size, uri: "{{ outputs.w.uri }}" }\n')).toEqual({
      ...common,
      id: 's',
      type: TASK_TYPES.StorageSize,
      kind: 'StorageSize',
      uri: '{{ outputs.w.uri }}',
    });
    expect(onlyTask('  - { id: d, type: io.kestra.plugin.core.storage.Delete, uri: u }\n')).toMatchObject({
      kind: 'StorageDelete',
      uri: 'u',
      errorOnMissing: false,
    });
    expect(onlyTask('  - { id: d, type: io.kestra.plugin.core.storage.Delete, uri: u, errorOnMissing: true }\n')).toMatchObject({
      errorOnMissing: true,
    });
  });

  it('Concat with a list of files or one template, a separator, the extension .tmp unless given', () => {
    expect(onlyTask('  - { id: c, type: io.kestra.plugin.core.storage.Concat, files: [a, b], separator: "\\n" }\n')).toEqual({
      ...common,
      id: 'c',
      type: TASK_TYPES.StorageConcat,
      kind: 'StorageConcat',
      files: ['a', 'b'],
      separator: '\n',
      extension: '.tmp',
    });
    expect(onlyTask('  - { id: c, type: io.kestra.plugin.core.storage.Concat, files: "{{ outputs.x.uris }}" }\n')).toMatchObject({
      files: '{{ outputs.x.uris }}',
    });
  });

  it("reads Kestra's older storages.* names as the current types", () => {
    expect(onlyTask('  - { id: c, type: io.kestra.core.tasks.storages.Concat, files: [a] }\n')).toMatchObject({
      type: TASK_TYPES.StorageConcat,
      kind: 'StorageConcat',
    });
  });

  it('names the missing property', () => {
    expect(
      messagesOf(
        flowWithTasks(
          '  - { id: w, type: io.kestra.plugin.core.storage.Write }\n  - { id: c, type: io.kestra.plugin.core.storage.Concat }\n',
        ),
      ),
    ).toEqual(['tasks[0].content: required', 'tasks[1].files: required']);
  });

  it('Split with from and one of bytes, rows or partitions, the separator a newline unless given', () => {
    expect(onlyTask('  - { id: s, type: io.kestra.plugin.core.storage.Split, from: "{{ outputs.w.uri }}", rows: 10 }\n')).toEqual(
      {
        ...common,
        id: 's',
        type: TASK_TYPES.StorageSplit,
        kind: 'StorageSplit',
        from: '{{ outputs.w.uri }}',
        by: { kind: 'rows', value: '10' },
        separator: '\n',
      },
    );
    expect(
      onlyTask('  - { id: s, type: io.kestra.plugin.core.storage.Split, from: u, bytes: 10MB, separator: ";" }\n'),
    ).toMatchObject({
      by: { kind: 'bytes', value: '10MB' },
      separator: ';',
    });
    expect(
      onlyTask('  - { id: s, type: io.kestra.plugin.core.storage.Split, from: u, partitions: "{{ inputs.n }}" }\n'),
    ).toMatchObject({
      by: { kind: 'partitions', value: '{{ inputs.n }}' },
    });
  });

  it('Split needs exactly one way of cutting', () => {
    expect(messagesOf(flowWithTasks('  - { id: s, type: io.kestra.plugin.core.storage.Split, from: u }\n'))).toEqual([
      'tasks[0].bytes: one of bytes, rows or partitions is required',
    ]);
    expect(
      messagesOf(flowWithTasks('  - { id: s, type: io.kestra.plugin.core.storage.Split, from: u, rows: 1, bytes: 2 }\n')),
    ).toEqual(['tasks[0].rows: only one of bytes, rows or partitions may be given (found bytes, rows)']);
  });

  it('PurgeCurrentExecutionFiles, also under its older names', () => {
    for (const type of [
      'io.kestra.plugin.core.storage.PurgeCurrentExecutionFiles',
      'io.kestra.plugin.core.storage.PurgeExecution',
      'io.kestra.core.tasks.storages.PurgeExecution',
    ]) {
      expect(onlyTask(`  - { id: p, type: ${type} }\n`)).toEqual({
        ...common,
        id: 'p',
        type: TASK_TYPES.PurgeCurrentExecutionFiles,
        kind: 'PurgeCurrentExecutionFiles',
      });
    }
  });

  it('LocalFiles with its inputs and outputs, also under its older name', () => {
    for (const type of ['io.kestra.plugin.core.storage.LocalFiles', 'io.kestra.core.tasks.storages.LocalFiles']) {
      expect(onlyTask(`  - { id: l, type: ${type}, inputs: { a.txt: hello }, outputs: ["*.txt"] }\n`)).toEqual({
        ...common,
        id: 'l',
        type: TASK_TYPES.LocalFiles,
        kind: 'LocalFiles',
        inputs: { 'a.txt': 'hello' },
        outputs: ['*.txt'],
      });
    }
  });
});
