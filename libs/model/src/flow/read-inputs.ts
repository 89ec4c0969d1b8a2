// A flow's declared inputs and outputs.

import type { FlowInput, FlowOutput, FlowProblem, InputType } from './flow.types';
import { INPUT_TYPES, OUTPUT_TYPES } from './flow.types';
import { coerceInputValue, compileValidator, isTemplate } from './coerce-inputs';
import { FlowSource, ObjectView } from './flow-source';
import { dropUndefined } from './read-tasks';

const INPUT_ID_PATTERN = /^[a-zA-Z0-9][.a-zA-Z0-9_-]*$/;
const COMMON_INPUT_KEYS = ['id', 'name', 'type', 'description', 'displayName', 'required', 'defaults'];
const TYPE_INPUT_KEYS: Partial<Record<InputType, readonly string[]>> = {
  STRING: ['validator'],
  INT: ['min', 'max'],
  FLOAT: ['min', 'max'],
  SELECT: ['values'],
  ARRAY: ['itemType'],
};
/** Kestra's other names for the same input types. */
const INPUT_TYPE_ALIASES: Readonly<Record<string, InputType>> = { ENUM: 'SELECT', BOOL: 'BOOLEAN' };
const ITEM_TYPES = INPUT_TYPES.filter(
  (type): type is Exclude<InputType, 'ARRAY' | 'SELECT'> => type !== 'ARRAY' && type !== 'SELECT',
);

export function readInputs(source: FlowSource, flow: ObjectView): FlowInput[] {
  return readInputList(source, flow, 'inputs');
}

/** A list of input declarations under `key` (a flow's `inputs`, a Pause's `onResume`). */
export function readInputList(source: FlowSource, owner: ObjectView, key: string): FlowInput[] {
  const node = owner.node(key);
  if (node === undefined) return [];
  const items = source.list(node, owner.at(key), 'a list of inputs') ?? [];
  const ids = new Map<string, string>();
  const inputs: FlowInput[] = [];
  for (const item of items) {
    const view = source.object(item.node, item.path, 'an input (a mapping with an id and a type)');
    if (!view) continue;
    const input = readInput(view, ids);
    if (input) inputs.push(input);
  }
  return inputs;
}

function readInput(view: ObjectView, ids: Map<string, string>): FlowInput | undefined {
  // `name` is Kestra's old spelling of `id`.
  const idKey = !view.has('id') && view.has('name') ? 'name' : 'id';
  if (idKey === 'name') view.warn('name', "is deprecated: write 'id'");
  else if (view.has('name')) view.report('name', "is the old spelling of 'id'; set only one of them");
  const id = view.string(idKey, true);
  if (view.has(idKey) && id !== '') {
    if (!INPUT_ID_PATTERN.test(id))
      view.report(idKey, 'must start with a letter or digit and contain only letters, digits, ., _ and -');
    const first = ids.get(id);
    if (first !== undefined) view.report(idKey, `duplicate input id '${id}' (also at ${first})`);
    else ids.set(id, view.at(idKey));
  }
  const written = view.string('type', true);
  if (!view.has('type') || written === '') return undefined;
  const type = INPUT_TYPE_ALIASES[written] ?? INPUT_TYPES.find((candidate) => candidate === written);
  if (type === undefined) {
    view.report('type', `unsupported input type '${written}' (use one of ${INPUT_TYPES.join(', ')})`);
    return undefined;
  }
  view.rejectUnknown([...COMMON_INPUT_KEYS, ...(TYPE_INPUT_KEYS[type] ?? [])], `a ${type} input`);
  const input: FlowInput = dropUndefined({
    id,
    type,
    description: view.string('description'),
    displayName: view.string('displayName'),
    // Kestra's inputs are required unless said otherwise.
    required: view.boolean('required', true),
    defaults: view.value('defaults'),
    validator: view.string('validator'),
    min: view.number('min'),
    max: view.number('max'),
    values: view.stringList('values', { required: type === 'SELECT', nonEmpty: true }),
    itemType: view.enumOf('itemType', ITEM_TYPES),
  });
  if (type === 'ARRAY' && !view.has('itemType')) view.required('itemType');
  if (input.validator !== undefined && compileValidator(input.validator) === undefined) {
    view.report('validator', 'is not a valid regular expression');
  }
  if (input.min !== undefined && input.max !== undefined && input.min > input.max) view.report('max', 'must be >= min');
  if (input.defaults !== undefined && input.defaults !== null && !isTemplate(input.defaults)) {
    // A literal default must itself be a valid value; template defaults are checked once rendered.
    const problems: FlowProblem[] = [];
    coerceInputValue(input, input.defaults, view.at('defaults'), problems);
    for (const problem of problems) view.source.report(problem.path, problem.message, view.position('defaults'));
  }
  return input;
}

export function readOutputs(source: FlowSource, flow: ObjectView): FlowOutput[] {
  const node = flow.node('outputs');
  if (node === undefined) return [];
  const items = source.list(node, flow.at('outputs'), 'a list of outputs') ?? [];
  const ids = new Map<string, string>();
  const outputs: FlowOutput[] = [];
  for (const item of items) {
    const view = source.object(item.node, item.path, 'an output (a mapping with an id, a type and a value)');
    if (!view) continue;
    view.rejectUnknown(['id', 'type', 'value', 'description', 'displayName'], 'an output');
    const id = view.string('id', true);
    if (view.has('id') && id !== '') {
      if (!INPUT_ID_PATTERN.test(id))
        view.report('id', 'must start with a letter or digit and contain only letters, digits, ., _ and -');
      const first = ids.get(id);
      if (first !== undefined) view.report('id', `duplicate output id '${id}' (also at ${first})`);
      else ids.set(id, view.at('id'));
    }
    const type = view.enumOf('type', OUTPUT_TYPES);
    if (!view.has('type')) view.required('type');
    if (!view.has('value')) view.required('value');
    const value = view.value('value');
    if (type !== undefined && value !== undefined) {
      outputs.push(
        dropUndefined({ id, type, value, description: view.string('description'), displayName: view.string('displayName') }),
      );
    }
  }
  return outputs;
}
