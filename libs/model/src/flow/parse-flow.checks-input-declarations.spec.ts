import { messagesOf, readFlow } from './spec-helpers';

const withInputs = (inputs: string): string =>
  `id: f\nnamespace: n\ninputs:\n${inputs}tasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\n`;

describe('parseFlow checks input and output declarations', () => {
  it('makes inputs required unless said otherwise, like Kestra', () => {
    const flow = readFlow(
      withInputs(`  - { id: region, type: STRING, validator: "[a-z]{2}", displayName: Region }
  - { id: count, type: INT, min: 1, max: 10, defaults: 3, required: false }
  - { id: mode, type: SELECT, values: [fast, safe], defaults: safe }
  - { id: ids, type: ARRAY, itemType: INT }
  - { id: since, type: DATETIME, defaults: "{{ now() }}" }
`),
    );
    expect(flow.inputs).toEqual([
      { id: 'region', type: 'STRING', required: true, validator: '[a-z]{2}', displayName: 'Region' },
      { id: 'count', type: 'INT', required: false, min: 1, max: 10, defaults: 3 },
      { id: 'mode', type: 'SELECT', required: true, values: ['fast', 'safe'], defaults: 'safe' },
      { id: 'ids', type: 'ARRAY', required: true, itemType: 'INT' },
      { id: 'since', type: 'DATETIME', required: true, defaults: '{{ now() }}' },
    ]);
  });

  it('reads Kestra’s ENUM and BOOL as SELECT and BOOLEAN', () => {
    const flow = readFlow(withInputs('  - { id: e, type: ENUM, values: [a] }\n  - { id: b, type: BOOL }\n'));
    expect(flow.inputs.map((input) => input.type)).toEqual(['SELECT', 'BOOLEAN']);
  });

  it('refuses unsupported types, misplaced rules, bad validators and defaults of the wrong type', () => {
    expect(
      messagesOf(
        withInputs(`  - { id: f, type: SECRET }
  - { id: n, type: INT, validator: "x" }
  - { id: s, type: STRING, validator: "([a-z" }
  - { id: m, type: FLOAT, min: 5, max: 1 }
  - { id: c, type: SELECT }
  - { id: l, type: ARRAY }
  - { id: d, type: INT, defaults: many }
  - { id: t, type: SELECT, values: [a, b], defaults: c }
  - { type: STRING }
`),
      ),
    ).toEqual([
      "inputs[0].type: unsupported input type 'SECRET' (use one of STRING, INT, FLOAT, BOOLEAN, DATETIME, DURATION, JSON, ARRAY, SELECT, FILE)",
      "inputs[1].validator: unknown property 'validator' for a INT input",
      'inputs[2].validator: is not a valid regular expression',
      'inputs[3].max: must be >= min',
      'inputs[4].values: required',
      'inputs[5].itemType: required',
      'inputs[6].defaults: must be an integer',
      'inputs[7].defaults: must be one of a, b',
      'inputs[8].id: required',
    ]);
  });

  it('reads outputs and requires their type and value', () => {
    const source = `id: f\nnamespace: n\ntasks:\n  - { id: a, type: io.kestra.plugin.core.log.Log, message: hi }\noutputs:\n`;
    expect(
      readFlow(`${source}  - { id: total, type: INT, value: "{{ outputs.a.count }}", description: rows }\n`).outputs,
    ).toEqual([{ id: 'total', type: 'INT', value: '{{ outputs.a.count }}', description: 'rows' }]);
    expect(messagesOf(`${source}  - { id: total, type: NUMBER }\n`)).toEqual([
      'outputs[0].value: required',
      'outputs[0].type: must be one of STRING, INT, FLOAT, BOOLEAN, DATETIME, DURATION, JSON, ARRAY',
    ]);
  });
});
