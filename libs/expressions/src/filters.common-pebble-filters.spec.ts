import { renderTemplate } from './index';

const options = { now: new Date('2026-01-02T03:04:05Z') };
const context = {
  inputs: { name: '  Ada Lovelace ', list: [3, 1, 2, 1], map: { b: 2, a: 1 }, csv: 'x,y,z', n: '-12.5', s: 'a/b c' },
};
const render = (template: string): string => renderTemplate(template, context, options);

describe('filters: the common Pebble and Kestra filters', () => {
  it.each([
    ["{{ 'Ada' | upper }} {{ 'Ada' | lower }}", 'ADA ada'],
    ['{{ inputs.name | trim }}', 'Ada Lovelace'],
    ["{{ 'ada lovelace' | capitalize }} / {{ 'ada lovelace' | title }}", 'Ada lovelace / Ada Lovelace'],
    ["{{ '' | default('fallback') }} {{ 'set' | default('fallback') }}", 'fallback set'],
    ["{{ inputs.map | json }} {{ 'q\"' | json }} {{ null | toJson }}", '{"b":2,"a":1} "q\\"" null'],
    ['{{ (\'{"k": [1]}\' | fromJson).k[0] }}', '1'],
    ['{{ inputs.list | length }} {{ inputs.map | length }} {{ inputs.csv | length }}', '4 2 5'],
    ['{{ inputs.list | first }} {{ inputs.list | last }}', '3 1'],
    ["{{ inputs.list | join('-') }}", '3-1-2-1'],
    ["{{ inputs.csv | replace(',', ';') }} {{ inputs.csv | replace({'x': '1', 'z': '3'}) }}", 'x;y;z 1,y,3'],
    ["{{ inputs.csv | split(',') }} {{ inputs.csv | split(',', 2) }}", '["x","y","z"] ["x","y,z"]'],
    ['{{ inputs.n | number }} {{ inputs.n | number | abs }}', '-12.5 12.5'],
    ["{{ inputs.map | keys | join(',') }} {{ inputs.map | values | join(',') }}", 'b,a 2,1'],
    ['{{ inputs.list | sort }} {{ inputs.list | reverse }} {{ inputs.list | unique }}', '[1,1,2,3] [1,2,1,3] [3,1,2]'],
    [
      "{{ 'hi' | base64encode }} {{ 'aGk=' | base64decode }} {{ inputs.s | urlencode }} {{ \"it's (ok)!\" | urlencode }}",
      'aGk= hi a%2Fb+c it%27s+%28ok%29%21',
    ],
    ['{{ range(1, 3) }} {{ max(1, 5, 2) }} {{ min([4, 2]) }}', '[1,2,3] 5 2'],
  ])('%s', (template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it('explains a wrong input by its type, never its value', () => {
    expect(() => render('{{ inputs.name | number }}')).toThrow("'number' expects a numeric string");
    expect(() => render('{{ inputs.map | join }}')).toThrow("'join' expects a list, got a map");
    expect(() => render('{{ inputs.list | upper }}')).toThrow("'upper' expects text, got a list");
  });
});
