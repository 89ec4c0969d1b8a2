import { InvalidRequest } from '../http/api-errors';
import { newExecutionFromForm, parseLabels } from './new-execution-form';

describe('a run request sent as a multipart form', () => {
  it('makes each text field an input, a repeated field a list, and collects file parts by input name', () => {
    const request = newExecutionFromForm({
      fields: [
        { name: 'who', value: 'ada' },
        { name: 'tags', value: 'a' },
        { name: 'tags', value: 'b' },
        { name: 'labels', value: 'team:qa' },
      ],
      files: [
        { name: 'report', filename: 'r.csv', sizeBytes: 3, stored: 'kestra:///n/f/executions/e/inputs/report/r.csv' },
        { name: 'other', filename: 'o.csv', sizeBytes: 4 },
      ],
    });
    expect(request).toEqual({
      inputs: { who: 'ada', tags: ['a', 'b'] },
      labels: { team: 'qa' },
      fileInputs: [{ name: 'report', stored: 'kestra:///n/f/executions/e/inputs/report/r.csv' }, { name: 'other' }],
    });
  });

  it('reads key:value labels, keeping colons of the value, and names each one without a key', () => {
    expect(parseLabels(['env:prod', 'url:http://x:1'], 'labels', 'body')).toEqual({ env: 'prod', url: 'http://x:1' });
    let thrown: unknown;
    try {
      parseLabels(['ok:1', 'nocolon', ':empty'], 'labels', 'query');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidRequest);
    expect((thrown as InvalidRequest).message).toBe('The query is not valid');
    expect((thrown as InvalidRequest).problems.map((problem) => problem.path)).toEqual(['labels[1]', 'labels[2]']);
  });
});
