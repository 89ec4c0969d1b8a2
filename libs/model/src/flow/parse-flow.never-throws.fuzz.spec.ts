// Property-based: whatever text arrives (from the API, a Git sync, a user's
// editor), parseFlow answers with a flow or with located problems, never throws.
// The unguarded variant is tested so a bug hidden by the last-resort catch shows.

import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { coerceInputs } from './coerce-inputs';
import { INPUT_TYPES, TASK_TYPES } from './flow.types';
import type { FlowInput, ParseFlowResult } from './flow.types';
import { parseFlowUnguarded } from './parse-flow';
import { TRIGGER_TYPES } from './task-type-names';

const VALID_FLOW = `id: nightly-report
namespace: company.team
labels: { team: data }
inputs:
  - { id: region, type: STRING, defaults: eu, required: false }
  - { id: count, type: INT, min: 1, defaults: 2 }
variables: { bucket: reports }
concurrency: { limit: 2, behavior: QUEUE }
workerSelector: { tags: [linux] }
tasks:
  - id: build
    type: io.kestra.plugin.scripts.shell.Commands
    commands: [ "make report REGION={{ inputs.region }}" ]
    workerSelector: { tags: [gpu], match: ALL, fallback: WAIT }
    retry: { type: exponential, interval: PT1S, maxInterval: PT30S, maxAttempts: 5 }
    timeout: PT10M
  - id: fan-out
    type: io.kestra.plugin.core.flow.ForEach
    values: ["a", "b", "c"]
    concurrencyLimit: 2
    tasks:
      - { id: say, type: io.kestra.plugin.core.log.Log, message: "{{ taskrun.value }}" }
  - id: dag
    type: io.kestra.plugin.core.flow.Dag
    tasks:
      - task: { id: one, type: io.kestra.plugin.core.debug.Return, format: "1" }
      - task: { id: two, type: io.kestra.plugin.core.flow.Sleep, duration: PT1S }
        dependsOn: [one]
  - id: route
    type: io.kestra.plugin.core.flow.Switch
    value: "{{ inputs.region }}"
    cases:
      eu: [{ id: eu-log, type: io.kestra.plugin.core.log.Log, message: eu }]
    defaults: [{ id: other-log, type: io.kestra.plugin.core.log.Log, message: other }]
errors:
  - { id: alert, type: io.kestra.plugin.core.log.Log, level: ERROR, message: "failed" }
outputs:
  - { id: report, type: STRING, value: "{{ outputs.build.vars.path }}" }
triggers:
  - { id: nightly, type: io.kestra.plugin.core.trigger.Schedule, cron: "0 2 * * *" }
  - id: after
    type: io.kestra.plugin.core.trigger.Flow
    conditions: [{ type: io.kestra.plugin.core.condition.ExecutionStatus, in: [SUCCESS] }]
`;

function expectLocatedProblemsOrFlow(result: ParseFlowResult): void {
  if (result.ok) {
    expect(result.flow.id).toEqual(expect.any(String));
    return;
  }
  expect(result.problems.length).toBeGreaterThan(0);
  for (const problem of result.problems) {
    expect(problem.message.length).toBeGreaterThan(0);
    expect(problem.path !== '' || problem.line !== undefined).toBe(true);
  }
}

const YAML_ALPHABET = [...'abcdefxyz019:-_ \n\t[]{},&*!#|>"\'%@`?.$\\/'];
const yamlishText = fc.array(fc.constantFrom(...YAML_ALPHABET), { maxLength: 200 }).map((chars) => chars.join(''));
const yamlishLines = fc
  .array(
    fc.tuple(
      fc.nat({ max: 6 }),
      fc.constantFrom('id', 'namespace', 'tasks', 'type', '- id', '- type', 'message', 'retry', '&a x', '*a', '- [', '{'),
      yamlishText,
    ),
    { maxLength: 20 },
  )
  .map((lines) => lines.map(([indent, key, rest]) => `${' '.repeat(indent)}${key}: ${rest}`).join('\n'));

const KNOWN_KEYS = [
  'id',
  'type',
  'tasks',
  'then',
  'else',
  'cases',
  'errors',
  'finally',
  'values',
  'value',
  'retry',
  'interval',
  'timeout',
  'workerSelector',
  'tags',
  'fallback',
  'dependsOn',
  'task',
  'labels',
  'inputs',
  'conditions',
  'cron',
  'message',
  'defaults',
  'concurrency',
  'limit',
  'behavior',
  'checkFrequency',
  'pauseDuration',
  'commands',
  'env',
  'format',
  'namespace',
  'flowId',
  'maxAttempts',
];
const ANY_TYPE = [
  ...Object.values(TASK_TYPES),
  ...Object.values(TRIGGER_TYPES),
  ...INPUT_TYPES,
  'constant',
  'exponential',
  'random',
  'x.y.Z',
];

/** Random structures that look enough like flows to reach deep into the readers. */
const flowLike = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    fc.constantFrom(...ANY_TYPE, 'PT1S', 'P1D', '{{ x }}', '0 2 * * *'),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KNOWN_KEYS), tie('node'), { maxKeys: 6 }),
  ),
})).node;

const validFlowObject = parse(VALID_FLOW) as Record<string, unknown>;

type Mutation = { kind: 'delete' | 'replace' | 'insert'; at: number; junk: unknown };

/** Applies one structural mutation at the `at`-th container of the parsed flow. */
function mutate(value: unknown, mutation: Mutation): unknown {
  let counter = 0;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      const copy = node.map(visit);
      if (counter++ === mutation.at && copy.length > 0) {
        const index = mutation.at % copy.length;
        if (mutation.kind === 'delete') copy.splice(index, 1);
        else if (mutation.kind === 'replace') copy[index] = mutation.junk;
        else copy.splice(index, 0, mutation.junk);
      }
      return copy;
    }
    if (node !== null && typeof node === 'object') {
      const entries = Object.entries(node).map(([key, child]) => [key, visit(child)] as [string, unknown]);
      if (counter++ === mutation.at && entries.length > 0) {
        const index = mutation.at % entries.length;
        if (mutation.kind === 'delete') entries.splice(index, 1);
        else if (mutation.kind === 'replace') entries[index] = [entries[index][0], mutation.junk];
        else entries.push([`junk${mutation.at}`, mutation.junk]);
      }
      return Object.fromEntries(entries);
    }
    return node;
  };
  return visit(value);
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('delete', 'replace', 'insert'),
  at: fc.nat({ max: 60 }),
  junk: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...ANY_TYPE)),
});

describe('parseFlow never throws (fuzz)', () => {
  it('on random YAML-ish text', () => {
    fc.assert(
      fc.property(fc.oneof(yamlishText, yamlishLines, fc.string({ maxLength: 300 })), (text) => {
        expectLocatedProblemsOrFlow(parseFlowUnguarded(text));
      }),
      { numRuns: 300 },
    );
  });

  it('on random JSON structures dumped to YAML', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), flowLike), (value) => {
        expectLocatedProblemsOrFlow(parseFlowUnguarded(stringify(value)));
      }),
      { numRuns: 200 },
    );
  });

  it('on random flow-shaped documents', () => {
    fc.assert(
      fc.property(fc.array(flowLike, { maxLength: 4 }), flowLike, (tasks, triggers) => {
        const source = stringify({ id: 'f', namespace: 'n', tasks, errors: tasks, triggers: [triggers] });
        expectLocatedProblemsOrFlow(parseFlowUnguarded(source));
      }),
      { numRuns: 200 },
    );
  });

  it('on valid flows with a key deleted, a value replaced or junk inserted', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const mutated = mutations.reduce<unknown>((flow, next) => mutate(flow, next), validFlowObject);
        expectLocatedProblemsOrFlow(parseFlowUnguarded(stringify(mutated)));
      }),
      { numRuns: 200 },
    );
  });

  it('on valid flow text with characters inserted or removed', () => {
    const edit = fc.record({ at: fc.nat({ max: VALID_FLOW.length }), remove: fc.nat({ max: 5 }), insert: yamlishText });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        const text = edits.reduce(
          (source, { at, remove, insert }) => source.slice(0, at) + insert.slice(0, 8) + source.slice(at + remove),
          VALID_FLOW,
        );
        expectLocatedProblemsOrFlow(parseFlowUnguarded(text));
      }),
      { numRuns: 200 },
    );
  });

  it('and the unmutated flow is valid', () => {
    expect(parseFlowUnguarded(VALID_FLOW).ok).toBe(true);
    expect(parseFlowUnguarded(stringify(validFlowObject)).ok).toBe(true);
  });
});

describe('coerceInputs never throws (fuzz)', () => {
  const declaration: fc.Arbitrary<FlowInput> = fc.record(
    {
      id: fc.constantFrom('a', 'b', 'c'),
      type: fc.constantFrom(...INPUT_TYPES),
      required: fc.boolean(),
      defaults: fc.jsonValue({ maxDepth: 2 }),
      validator: fc.string({ maxLength: 8 }),
      min: fc.double(),
      max: fc.double(),
      values: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
      itemType: fc.constantFrom('STRING', 'INT', 'FLOAT', 'BOOLEAN', 'DATETIME', 'DURATION', 'JSON'),
    },
    { requiredKeys: ['id', 'type', 'required'] },
  );

  it('on any declarations and values', () => {
    fc.assert(
      fc.property(
        fc.array(declaration, { maxLength: 4 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'x'), fc.jsonValue({ maxDepth: 3 })),
        (inputs, values) => {
          const result = coerceInputs(inputs, values);
          if (!result.ok) for (const problem of result.problems) expect(problem.path).toMatch(/^inputs\./);
        },
      ),
      { numRuns: 200 },
    );
  });
});
