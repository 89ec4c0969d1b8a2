import { evaluateCondition } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = {
  inputs: { yes: true, no: false, zero: 0, empty: '', nothing: null, word: 'false', text: 'go', list: [] },
  outputs: { check: { code: 200 } },
};

describe('evaluateCondition: Kestra truthiness of the rendered result', () => {
  it.each([
    ['{{ inputs.yes }}', true],
    ['{{ inputs.no }}', false],
    ['{{ inputs.zero }}', false],
    ['{{ inputs.empty }}', false],
    ['{{ inputs.nothing }}', false],
    ['{{ inputs.word }}', false],
    ['{{ inputs.text }}', true],
    ['{{ outputs.check.code == 200 }}', true],
    ['{{ outputs.check.code != 200 }}', false],
    [' {{ inputs.no }} ', false],
    ['{{ -0 }}', false],
    ['{{ 1 }}', true],
    ['true', true],
    ['false', false],
    ['{% if inputs.list is empty %}true{% endif %}', true],
  ])('%s is %s', (template, expected) => {
    expect(evaluateCondition(template, context, options)).toBe(expected);
  });

  it('fails on an undefined variable instead of reading it as false', () => {
    expect(() => evaluateCondition('{{ inputs.typo }}', context, options)).toThrow("'inputs.typo' is undefined");
  });
});
