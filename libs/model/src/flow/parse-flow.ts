// parseFlow: Kestra-format flow YAML -> the typed Flow, or every problem found,
// each with its YAML path and line. Pure: no I/O, no clock; never throws.

import { isMap, LineCounter, parseDocument } from 'yaml';
import type {
  ConcurrencyBehavior,
  Flow,
  FlowConcurrency,
  FlowProblem,
  FlowSla,
  ParseFlowResult,
  SlaBehavior,
} from './flow.types';
import { FlowSource, ObjectView } from './flow-source';
import { readInputs, readOutputs } from './read-inputs';
import { readPluginDefaults } from './plugin-defaults';
import { dropUndefined, readRetry, readWorkerSelector, TaskReader } from './read-tasks';
import { readTriggers } from './read-triggers';
import { checkYamlBounds } from './yaml-bounds';
import { SYSTEM_LABEL_REFUSAL, systemLabelKeys } from './system-labels';

/** FLOWS.md: a flow's source is at most 1 MiB. */
export const MAX_FLOW_SOURCE_BYTES = 1024 * 1024;

export const FLOW_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;
export const NAMESPACE_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*(\.[a-zA-Z0-9][a-zA-Z0-9_-]*)*$/;
const MAX_FLOW_ID_LENGTH = 100;
const MAX_NAMESPACE_LENGTH = 150;

const FLOW_KEYS = [
  'id',
  'namespace',
  'revision',
  'description',
  'labels',
  'inputs',
  'variables',
  'concurrency',
  'workerSelector',
  'tasks',
  'errors',
  'finally',
  'outputs',
  'triggers',
  'disabled',
  'retry',
  'sla',
  'pluginDefaults',
  'taskDefaults',
];
const CONCURRENCY_BEHAVIORS: readonly ConcurrencyBehavior[] = ['QUEUE', 'CANCEL', 'FAIL'];

/**
 * Reads a flow. `ok: false` lists every problem at once (YAML syntax, unknown
 * types and properties, wrong shapes, bad values, duplicate ids, Dag cycles).
 */
export function parseFlow(source: string): ParseFlowResult {
  try {
    return parseFlowUnguarded(source);
  } catch {
    // A bug of ours must not become a crash of the caller (the API, the executor).
    // The fuzz tests run parseFlowUnguarded so such a bug is still found.
    return { ok: false, problems: [{ path: '', line: 1, column: 1, message: 'the flow could not be read' }] };
  }
}

/** parseFlow without its last-resort guard; exported for the fuzz tests. */
export function parseFlowUnguarded(source: string): ParseFlowResult {
  if (typeof source !== 'string') {
    return { ok: false, problems: [{ path: '', line: 1, column: 1, message: 'the flow source must be text' }] };
  }
  if (utf8Length(source) > MAX_FLOW_SOURCE_BYTES) {
    return {
      ok: false,
      problems: [
        { path: '', line: 1, column: 1, message: `the flow source is larger than ${MAX_FLOW_SOURCE_BYTES} bytes (1 MiB)` },
      ],
    };
  }
  const bound = checkYamlBounds(source);
  if (bound !== undefined) {
    // Refused before the document is built: building it is what a YAML bomb costs.
    const { line, col } = lineAt(source, bound.offset);
    return { ok: false, problems: [{ path: '', line, column: col, message: bound.message }] };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const flowSource = new FlowSource(doc, lineCounter);

  // After a syntax error the tree is a guess; only duplicate keys leave it sound.
  for (const error of doc.errors) flowSource.report('', yamlErrorMessage(error.message), error.pos[0]);
  const broken = doc.errors.some((error) => error.code !== 'DUPLICATE_KEY');
  if (broken) return failure(flowSource.problems);

  const root = flowSource.resolve(doc.contents, '');
  if (root === undefined) {
    flowSource.report('', 'the flow is empty: it needs at least an id, a namespace and tasks', 0);
    return failure(flowSource.problems);
  }
  if (!isMap(root)) {
    flowSource.report('', 'a flow must be a mapping with an id, a namespace and tasks', root);
    return failure(flowSource.problems);
  }
  const view = flowSource.object(root, '');
  if (!view) return failure(flowSource.problems);
  const flow = readFlow(flowSource, view);
  if (flowSource.problems.length > 0) return failure(flowSource.problems);
  return flowSource.warnings.length > 0 ? { ok: true, flow, warnings: flowSource.warnings } : { ok: true, flow };
}

function readFlow(source: FlowSource, view: ObjectView): Flow {
  view.rejectUnknown(FLOW_KEYS, 'a flow');
  const id = view.string('id', true);
  if (view.has('id') && id !== '') {
    if (!FLOW_ID_PATTERN.test(id))
      view.report('id', 'must start with a letter or digit and contain only letters, digits, ., _ and -');
    else if (id.length > MAX_FLOW_ID_LENGTH) view.report('id', `must be at most ${MAX_FLOW_ID_LENGTH} characters`);
  }
  const namespace = view.string('namespace', true);
  if (view.has('namespace') && namespace !== '') {
    if (!NAMESPACE_PATTERN.test(namespace)) {
      view.report('namespace', 'must be dot-separated names of letters, digits, _ and - (like company.team)');
    } else if (namespace.length > MAX_NAMESPACE_LENGTH) {
      view.report('namespace', `must be at most ${MAX_NAMESPACE_LENGTH} characters`);
    }
  }
  const labels = view.labels('labels') ?? {};
  for (const key of systemLabelKeys(labels)) view.report('labels', `'${key}': ${SYSTEM_LABEL_REFUSAL}`);
  const tasks = new TaskReader(source, readPluginDefaults(source, view));
  return dropUndefined({
    id,
    namespace,
    revision: view.integer('revision', { min: 1 }),
    description: view.string('description'),
    labels,
    inputs: readInputs(source, view),
    variables: view.valueRecord('variables') ?? {},
    concurrency: readConcurrency(source, view),
    workerSelector: readWorkerSelector(view, 'workerSelector'),
    retry: readRetry(view, 'retry'),
    sla: readSla(source, view),
    tasks: tasks.taskList(view, 'tasks', { required: true, depth: 0 }) ?? [],
    errors: tasks.taskList(view, 'errors', { depth: 0 }) ?? [],
    finally: tasks.taskList(view, 'finally', { depth: 0 }) ?? [],
    outputs: readOutputs(source, view),
    triggers: readTriggers(source, view),
    disabled: view.boolean('disabled', false),
  });
}

function readConcurrency(source: FlowSource, flow: ObjectView): FlowConcurrency | undefined {
  const node = flow.node('concurrency');
  if (node === undefined) return undefined;
  const view = source.object(node, flow.at('concurrency'));
  if (!view) return undefined;
  view.rejectUnknown(['limit', 'behavior'], 'concurrency');
  if (!view.has('limit')) view.required('limit');
  return {
    limit: view.integer('limit', { min: 1, fallback: 1 }),
    // Kestra queues executions over the limit unless told otherwise.
    behavior: view.enumOf('behavior', CONCURRENCY_BEHAVIORS, 'QUEUE'),
  };
}

const SLA_BEHAVIORS: readonly SlaBehavior[] = ['FAIL', 'CANCEL', 'NONE'];
const SLA_TYPES = ['MAX_DURATION', 'EXECUTION_ASSERTION'] as const;

function readSla(source: FlowSource, flow: ObjectView): FlowSla[] | undefined {
  const node = flow.node('sla');
  if (node === undefined) return undefined;
  const slas: FlowSla[] = [];
  const ids = new Set<string>();
  for (const item of source.list(node, flow.at('sla'), 'a list of SLAs') ?? []) {
    const view = source.object(item.node, item.path, 'an SLA (a mapping with an id, a type and a behavior)');
    if (!view) continue;
    const type = view.enumOf('type', SLA_TYPES);
    if (!view.has('type')) view.required('type');
    const own = type === 'MAX_DURATION' ? ['duration'] : type === 'EXECUTION_ASSERTION' ? ['assert'] : [];
    view.rejectUnknown(['id', 'type', 'behavior', 'labels', ...own], type === undefined ? 'an SLA' : `a ${type} SLA`);
    const id = view.string('id', true);
    if (ids.has(id)) view.report('id', `duplicate SLA id '${id}'`);
    ids.add(id);
    if (!view.has('behavior')) view.required('behavior');
    const behavior = view.enumOf('behavior', SLA_BEHAVIORS, 'NONE');
    const labels = view.labels('labels') ?? {};
    if (type === 'MAX_DURATION') {
      slas.push({ id, type, durationMs: view.duration('duration', { required: true, positive: true }), behavior, labels });
    } else if (type === 'EXECUTION_ASSERTION') {
      slas.push({ id, type, assert: view.template('assert', true), behavior, labels });
    }
  }
  return slas;
}

/** 1-based line and column of an offset, without building a document. */
function lineAt(source: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = source.indexOf('\n'); at !== -1 && at < offset; at = source.indexOf('\n', at + 1)) {
    line += 1;
    lineStart = at + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

function yamlErrorMessage(message: string): string {
  // The YAML reader recurses per nesting level and reports its own stack overflow.
  return /call stack/i.test(message) ? 'the YAML is nested too deeply' : message;
}

function failure(problems: readonly FlowProblem[]): ParseFlowResult {
  // Reading order is close to source order already; sorting makes it exact.
  const seen = new Set<string>();
  const distinct = problems.filter((problem) => {
    const key = `${problem.path}\u0000${problem.message}\u0000${problem.line}\u0000${problem.column}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const sorted = distinct.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0));
  return { ok: false, problems: sorted };
}

/** UTF-8 byte length without allocating an encoded copy of a large source. */
function utf8Length(text: string): number {
  if (text.length > MAX_FLOW_SOURCE_BYTES) return text.length;
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** `tasks[2].retry.maxAttempts: must be >= 1 (line 14)`. */
export function formatProblem(problem: FlowProblem): string {
  const where = problem.path === '' ? '' : `${problem.path}: `;
  const line = problem.line === undefined ? '' : ` (line ${problem.line})`;
  return `${where}${problem.message}${line}`;
}
