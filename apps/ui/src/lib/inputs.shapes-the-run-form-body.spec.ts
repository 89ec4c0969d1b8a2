import type { FlowInput } from '../api/views';
import { fieldErrors, initialValues, inputsBody } from './inputs';

const inputs: FlowInput[] = [
  { id: 'name', type: 'STRING', required: true },
  { id: 'count', type: 'INT', defaults: 3 },
  { id: 'ratio', type: 'FLOAT' },
  { id: 'dry', type: 'BOOLEAN', defaults: true },
  { id: 'config', type: 'JSON' },
  { id: 'when', type: 'DATETIME' },
];

describe('the run form', () => {
  it('starts from each input’s default, as text (booleans as a checkbox state)', () => {
    expect(initialValues(inputs)).toEqual({ name: '', count: '3', ratio: '', dry: true, config: '', when: '' });
  });

  it('sends numbers as numbers, JSON parsed, and leaves empty fields for the API to default or refuse', () => {
    const body = inputsBody(inputs, { name: 'lanner', count: '12', ratio: '', dry: false, config: '{"a":1}', when: ' ' });
    expect(body).toEqual({ name: 'lanner', count: 12, dry: false, config: { a: 1 } });
  });

  it('sends what cannot be parsed as typed, so the API names the problem on its field', () => {
    expect(inputsBody(inputs, { count: 'many', config: '{oops' })).toEqual({ count: 'many', config: '{oops' });
  });

  it("places the API's problems on their input, and the others under the form", () => {
    expect(
      fieldErrors([
        { path: 'inputs.count', message: 'must be an integer' },
        { path: 'inputs.count', message: 'must be at least 1' },
        { path: 'labels', message: 'must be an object' },
      ]),
    ).toEqual({ count: 'must be an integer; must be at least 1', '': 'must be an object' });
  });
});
