import { renderValue } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = { inputs: { region: 'eu', count: 3 }, vars: { bucket: 'reports' }, labels: { team: 'data' } };

describe('renderValue: renders maps and lists recursively', () => {
  it('renders every string at any depth and leaves other values unchanged', () => {
    const task = {
      commands: ['make report REGION={{ inputs.region }}', 'upload s3://{{ vars.bucket }}'],
      env: { TEAM: '{{ labels.team | upper }}', RETRIES: 3, DRY_RUN: false, NOTHING: null },
      nested: [{ deep: ['{{ inputs.count }}'] }],
    };
    expect(renderValue(task, context, options)).toEqual({
      commands: ['make report REGION=eu', 'upload s3://reports'],
      env: { TEAM: 'DATA', RETRIES: 3, DRY_RUN: false, NOTHING: null },
      nested: [{ deep: ['3'] }],
    });
  });

  it('keeps a single expression a string, as Kestra does', () => {
    expect(renderValue('{{ inputs.count }}', context, options)).toBe('3');
  });

  it('renders map keys', () => {
    expect(renderValue({ '{{ inputs.region }}-key': 'v' }, context, options)).toEqual({ 'eu-key': 'v' });
  });

  it('does not change the value it was given', () => {
    const value = { a: ['{{ inputs.region }}'] };
    renderValue(value, context, options);
    expect(value).toEqual({ a: ['{{ inputs.region }}'] });
  });
});
