import { renderTag } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = { inputs: { region: 'eu', nothing: null, blank: '  ' } };

describe('renderTag: a tag that renders to nothing is null', () => {
  it('renders a tag', () => {
    expect(renderTag('{{ inputs.region }}', context, options)).toBe('eu');
    expect(renderTag('gpu', context, options)).toBe('gpu');
    expect(renderTag('zone-{{ inputs.region | upper }}', context, options)).toBe('zone-EU');
  });

  it.each(['{{ inputs.nothing }}', '{{ inputs.blank }}', '', '{{ inputs.notGiven }}', '{{ inputs.notGiven | upper }}'])(
    '%j is null',
    (template) => {
      expect(renderTag(template, context, options)).toBeNull();
    },
  );

  it('still reports a syntax error', () => {
    expect(() => renderTag('{{ inputs.region', context, options)).toThrow('syntax error');
  });
});
