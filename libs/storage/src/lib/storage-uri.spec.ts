import { executionPrefix, fileNameOf, inputFileUri, isUnder, parseStorageUri, StorageUriError, taskFileUri } from './storage-uri';

const scope = {
  namespace: 'company.team',
  flowId: 'etl',
  executionId: '4wjtkzwVGBM9yKnjm3yv8r',
  taskId: 'build',
  taskRunId: 'run7',
};

describe('internal storage URIs', () => {
  it("shapes a task run's file as Kestra does, the namespace as folders", () => {
    expect(taskFileUri(scope, 'out.csv').uri).toBe(
      'kestra:///company/team/etl/executions/4wjtkzwVGBM9yKnjm3yv8r/tasks/build/run7/out.csv',
    );
    expect(inputFileUri(scope, 'data', 'upload.json').uri).toBe(
      'kestra:///company/team/etl/executions/4wjtkzwVGBM9yKnjm3yv8r/inputs/data/upload.json',
    );
  });

  it("keeps a Lanner task run id's separators as written", () => {
    const uri = taskFileUri({ ...scope, taskRunId: `${scope.executionId}:each:build@2~1` }, 'out.csv');
    expect(uri.uri).toBe(
      `kestra:///company/team/etl/executions/${scope.executionId}/tasks/build/${scope.executionId}:each:build@2~1/out.csv`,
    );
    expect(parseStorageUri(uri.uri)).toEqual(uri);
  });

  it('escapes what a URI cannot hold and reads it back', () => {
    const uri = taskFileUri(scope, 'reports/march 2024 #1.csv');
    expect(uri.uri).toBe(
      'kestra:///company/team/etl/executions/4wjtkzwVGBM9yKnjm3yv8r/tasks/build/run7/reports/march%202024%20%231.csv',
    );
    expect(parseStorageUri(uri.uri)).toEqual(uri);
    expect(fileNameOf(uri)).toBe('march 2024 #1.csv');
  });

  it.each([
    ['a traversal', 'kestra:///company/team/../../other/x'],
    ['an escaped slash', 'kestra:///company/a%2F..%2F..%2Fb/x'],
    ['an empty segment', 'kestra:///company//x'],
    ['a control character', 'kestra:///company/a%00b'],
    ['another scheme', 'file:///etc/passwd'],
    ['a host', 'kestra://host/company/x'],
    ['a query', 'kestra:///company/x?y=1'],
    ['a malformed escape', 'kestra:///company/%zz'],
  ])('refuses %s', (_case, value) => {
    expect(() => parseStorageUri(value)).toThrow(StorageUriError);
  });

  it('refuses a file name that leaves its folder', () => {
    expect(() => taskFileUri(scope, '../escape.txt')).toThrow("'..' is not allowed");
    expect(() => taskFileUri(scope, '/etc/passwd')).toThrow('must be relative');
    expect(() => taskFileUri({ ...scope, taskId: '../x' }, 'a')).toThrow("task id '../x' is not a valid id");
  });

  it('tells a file of an execution from one of an execution whose id starts the same', () => {
    const prefix = executionPrefix(scope);
    expect(isUnder(taskFileUri(scope, 'a.txt'), prefix)).toBe(true);
    expect(isUnder(taskFileUri({ ...scope, executionId: `${scope.executionId}x` }, 'a.txt'), prefix)).toBe(false);
    expect(isUnder(prefix, prefix)).toBe(false);
  });
});
