// Tasks: the properties every task shares, then each task type's own, checked
// against Kestra's property names so nothing unknown is silently ignored.

import { isScalar, isSeq, type Node } from 'yaml';
import type {
  DagTask,
  ForEachTask,
  DurationSpec,
  HttpRequestTask,
  LabelsTask,
  NamespaceFilesSpec,
  StorageConcatTask,
  StorageSplitTask,
  LogLevel,
  LogTask,
  RetryBehavior,
  RetryPolicy,
  SelectorFallback,
  SelectorMatch,
  Task,
  TaskCommon,
  TemplatedValue,
  WorkerSelectorSpec,
} from './flow.types';
import { TASK_TYPES } from './flow.types';
import { FlowSource, ObjectView } from './flow-source';
import { mergeDefaults, type PluginDefault } from './plugin-defaults';
import { readInputList } from './read-inputs';
import { LEGACY_TASK_TYPES } from './task-type-names';

/** Kestra's task id rule (no dots: ids are used in `outputs.<id>` expressions). */
export const TASK_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
const MAX_ID_LENGTH = 100;
/** Flowable tasks may nest; deeper than this is refused before the stack is at risk. */
const MAX_TASK_DEPTH = 40;

const COMMON_KEYS = [
  'id',
  'type',
  'description',
  'disabled',
  'runIf',
  'allowFailure',
  'allowWarning',
  'timeout',
  'retry',
  'logLevel',
  'logToFile',
];
/** Only tasks that run on a worker are routed and cached. */
const RUNNABLE_KEYS = ['workerSelector', 'taskCache'];
const BRANCH_KEYS = ['errors', 'finally'];

const LOG_LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

interface TaskTypeSpec {
  readonly runnable: boolean;
  /** The type's own properties, besides the common ones. */
  readonly keys: readonly string[];
}

const TASK_SPECS: Readonly<Record<string, TaskTypeSpec>> = {
  [TASK_TYPES.Sequential]: { runnable: false, keys: ['tasks', ...BRANCH_KEYS] },
  [TASK_TYPES.Parallel]: { runnable: false, keys: ['tasks', 'concurrent', 'concurrency', ...BRANCH_KEYS] },
  [TASK_TYPES.If]: { runnable: false, keys: ['condition', 'then', 'else', ...BRANCH_KEYS] },
  [TASK_TYPES.Switch]: { runnable: false, keys: ['value', 'cases', 'defaults', ...BRANCH_KEYS] },
  [TASK_TYPES.ForEach]: { runnable: false, keys: ['values', 'concurrencyLimit', 'tasks', ...BRANCH_KEYS] },
  [TASK_TYPES.EachSequential]: { runnable: false, keys: ['value', 'tasks', ...BRANCH_KEYS] },
  [TASK_TYPES.EachParallel]: { runnable: false, keys: ['value', 'concurrent', 'tasks', ...BRANCH_KEYS] },
  [TASK_TYPES.Dag]: { runnable: false, keys: ['tasks', 'concurrency', ...BRANCH_KEYS] },
  [TASK_TYPES.AllowFailure]: { runnable: false, keys: ['tasks', ...BRANCH_KEYS] },
  [TASK_TYPES.WaitFor]: { runnable: false, keys: ['condition', 'tasks', 'checkFrequency', 'failOnMaxReached'] },
  [TASK_TYPES.Pause]: { runnable: false, keys: ['pauseDuration', 'delay', 'onResume', 'tasks', 'errors'] },
  [TASK_TYPES.Subflow]: {
    runnable: false,
    keys: ['namespace', 'flowId', 'revision', 'inputs', 'labels', 'wait', 'transmitFailed', 'inheritLabels', 'outputs'],
  },
  [TASK_TYPES.Fail]: { runnable: true, keys: ['condition', 'errorMessage'] },
  [TASK_TYPES.Labels]: { runnable: false, keys: ['labels'] },
  [TASK_TYPES.Log]: { runnable: true, keys: ['message', 'level'] },
  [TASK_TYPES.Echo]: { runnable: true, keys: ['format', 'level'] },
  [TASK_TYPES.Return]: { runnable: true, keys: ['format'] },
  [TASK_TYPES.OutputValues]: { runnable: true, keys: ['values'] },
  [TASK_TYPES.Sleep]: { runnable: true, keys: ['duration'] },
  [TASK_TYPES.HttpRequest]: { runnable: true, keys: ['uri', 'method', 'headers', 'body', 'contentType'] },
  [TASK_TYPES.ShellCommands]: { runnable: true, keys: ['commands', 'env', 'inputFiles', 'outputFiles', 'namespaceFiles'] },
  [TASK_TYPES.NodeScript]: { runnable: true, keys: ['script', 'env', 'inputFiles', 'outputFiles', 'namespaceFiles'] },
  [TASK_TYPES.StorageWrite]: { runnable: true, keys: ['content', 'extension'] },
  [TASK_TYPES.StorageSize]: { runnable: true, keys: ['uri'] },
  [TASK_TYPES.StorageDelete]: { runnable: true, keys: ['uri', 'errorOnMissing'] },
  [TASK_TYPES.StorageConcat]: { runnable: true, keys: ['files', 'separator', 'extension'] },
  [TASK_TYPES.StorageSplit]: { runnable: true, keys: ['from', 'bytes', 'rows', 'partitions', 'separator'] },
  [TASK_TYPES.PurgeCurrentExecutionFiles]: { runnable: true, keys: [] },
  [TASK_TYPES.LocalFiles]: { runnable: true, keys: ['inputs', 'outputs'] },
};

/** The current name of a task type, following legacy aliases; `undefined` when unknown. */
export function canonicalTaskType(type: string): string | undefined {
  const current = LEGACY_TASK_TYPES[type] ?? type;
  return Object.prototype.hasOwnProperty.call(TASK_SPECS, current) ? current : undefined;
}

export class TaskReader {
  /** Every task id seen so far in the flow, with the path of its first use. */
  private readonly taskIds = new Map<string, string>();

  constructor(
    private readonly source: FlowSource,
    private readonly defaults: readonly PluginDefault[] = [],
  ) {}

  /** A list of tasks under `key` of `view`. */
  taskList(view: ObjectView, key: string, options: { readonly required?: boolean; readonly depth: number }): Task[] | undefined {
    const node = view.node(key);
    if (node === undefined) {
      if (options.required) view.required(key);
      return options.required ? [] : undefined;
    }
    const items = this.source.list(node, view.at(key), 'a list of tasks');
    if (!items) return options.required ? [] : undefined;
    if (items.length === 0 && options.required) view.report(key, 'must contain at least one task');
    const tasks: Task[] = [];
    for (const item of items) {
      const task = this.task(item.node, item.path, options.depth);
      if (task) tasks.push(task);
    }
    return tasks;
  }

  task(node: Node, path: string, depth: number): Task | undefined {
    if (depth > MAX_TASK_DEPTH) {
      this.source.report(path, `tasks are nested deeper than ${MAX_TASK_DEPTH} levels`, node);
      return undefined;
    }
    const written = this.source.object(node, path, 'a task (a mapping with an id and a type)');
    if (!written) return undefined;
    const id = this.taskId(written);
    const writtenType = written.string('type', true);
    if (!written.has('type') || writtenType === '') return undefined;
    const type = canonicalTaskType(writtenType);
    if (type === undefined) {
      written.report('type', `unknown task type '${writtenType}'`);
      return undefined;
    }
    const spec = TASK_SPECS[type];
    const allowed = [...COMMON_KEYS, ...(spec.runnable ? RUNNABLE_KEYS : []), ...spec.keys];
    const merged = mergeDefaults(this.source, node, type, writtenType, this.defaults, allowed);
    const view = merged === node ? written : this.source.object(merged, path);
    if (!view) return undefined;
    view.rejectUnknown(allowed, type);
    const common = this.common(view, id, type, spec.runnable);
    return this.typed(view, common, depth + 1);
  }

  private taskId(view: ObjectView): string {
    const id = view.string('id', true);
    if (!view.has('id') || id === '') return id;
    if (!TASK_ID_PATTERN.test(id)) {
      view.report('id', 'must start with a letter or digit and contain only letters, digits, _ and -');
    } else if (id.length > MAX_ID_LENGTH) {
      view.report('id', `must be at most ${MAX_ID_LENGTH} characters`);
    }
    const first = this.taskIds.get(id);
    if (first !== undefined) view.report('id', `duplicate task id '${id}' (also at ${first})`);
    else this.taskIds.set(id, view.at('id'));
    return id;
  }

  private common(view: ObjectView, id: string, type: string, runnable: boolean): TaskCommon {
    const taskCache = runnable ? this.taskCache(view) : undefined;
    const workerSelector = runnable ? readWorkerSelector(view, 'workerSelector') : undefined;
    return dropUndefined({
      id,
      type,
      logLevel: view.enumOf('logLevel', LOG_LEVELS),
      logToFile: view.has('logToFile') ? view.boolean('logToFile', false) : undefined,
      description: view.string('description'),
      disabled: view.boolean('disabled', false),
      runIf: view.template('runIf'),
      allowFailure: view.boolean('allowFailure', false),
      allowWarning: view.boolean('allowWarning', false),
      timeoutMs: this.timeout(view, type),
      retry: readRetry(view, 'retry'),
      workerSelector,
      taskCache,
    });
  }

  private timeout(view: ObjectView, type: string): number | undefined {
    if (!isTemplated(view, 'timeout')) return view.duration('timeout', { positive: true });
    // A Pause renders its templated timeout when it starts (see pause()).
    if (type !== TASK_TYPES.Pause) view.report('timeout', 'must be an ISO-8601 duration (a template is read on a Pause only)');
    return undefined;
  }

  private taskCache(view: ObjectView): TaskCommon['taskCache'] {
    const node = view.node('taskCache');
    if (node === undefined) return undefined;
    const cache = this.source.object(node, view.at('taskCache'));
    if (!cache) return undefined;
    cache.rejectUnknown(['enabled', 'ttl'], 'taskCache');
    return dropUndefined({ enabled: cache.boolean('enabled', false), ttlMs: cache.duration('ttl', { positive: true }) });
  }

  private branches(view: ObjectView, depth: number): { errors?: Task[]; finally?: Task[] } {
    return dropUndefined({
      errors: this.taskList(view, 'errors', { depth }),
      finally: this.taskList(view, 'finally', { depth }),
    });
  }

  private typed(view: ObjectView, common: TaskCommon, depth: number): Task | undefined {
    const required = { required: true, depth } as const;
    switch (common.type) {
      case TASK_TYPES.Sequential:
        return {
          ...common,
          kind: 'Sequential',
          tasks: this.taskList(view, 'tasks', required) ?? [],
          ...this.branches(view, depth),
        };
      case TASK_TYPES.Parallel:
        return {
          ...common,
          kind: 'Parallel',
          tasks: this.taskList(view, 'tasks', required) ?? [],
          concurrency: this.parallelConcurrency(view),
          ...this.branches(view, depth),
        };
      case TASK_TYPES.If:
        return dropUndefined({
          ...common,
          kind: 'If' as const,
          condition: view.template('condition', true),
          then: this.taskList(view, 'then', required) ?? [],
          else: this.taskList(view, 'else', { depth }),
          ...this.branches(view, depth),
        });
      case TASK_TYPES.Switch:
        return dropUndefined({
          ...common,
          kind: 'Switch' as const,
          value: view.template('value', true),
          cases: this.switchCases(view, depth),
          defaults: this.taskList(view, 'defaults', { depth }),
          ...this.branches(view, depth),
        });
      case TASK_TYPES.ForEach:
        return this.forEach(view, common, depth, 'values', view.integer('concurrencyLimit', { min: 0, fallback: 1 }));
      case TASK_TYPES.EachSequential:
        return this.forEach(view, common, depth, 'value', 1);
      case TASK_TYPES.EachParallel:
        return this.forEach(view, common, depth, 'value', view.integer('concurrent', { min: 0, fallback: 0 }));
      case TASK_TYPES.Dag:
        return this.dag(view, common, depth);
      case TASK_TYPES.AllowFailure:
        return {
          ...common,
          kind: 'AllowFailure',
          tasks: this.taskList(view, 'tasks', required) ?? [],
          ...this.branches(view, depth),
        };
      case TASK_TYPES.WaitFor:
        return {
          ...common,
          kind: 'WaitFor',
          condition: view.template('condition', true),
          tasks: this.taskList(view, 'tasks', required) ?? [],
          checkFrequency: this.checkFrequency(view),
          failOnMaxReached: view.boolean('failOnMaxReached', false),
        };
      case TASK_TYPES.Pause:
        return this.pause(view, common, depth);
      case TASK_TYPES.Subflow:
        return dropUndefined({
          ...common,
          kind: 'Subflow' as const,
          namespace: view.template('namespace', true),
          flowId: view.template('flowId', true),
          revision: view.integer('revision', { min: 1 }),
          inputs: view.valueRecord('inputs'),
          labels: view.labels('labels'),
          wait: view.boolean('wait', true),
          transmitFailed: view.boolean('transmitFailed', true),
          inheritLabels: view.boolean('inheritLabels', false),
          outputs: this.subflowOutputs(view),
        });
      case TASK_TYPES.Fail:
        return dropUndefined({
          ...common,
          kind: 'Fail' as const,
          condition: view.template('condition'),
          errorMessage: view.template('errorMessage') ?? 'Task failure',
        });
      case TASK_TYPES.Labels:
        return { ...common, kind: 'Labels', labels: this.labelsTaskLabels(view) };
      case TASK_TYPES.Log:
        return { ...common, kind: 'Log', message: this.logMessage(view), level: view.enumOf('level', LOG_LEVELS, 'INFO') };
      case TASK_TYPES.Echo:
        // Echo is Log's old name; its `format` is the message.
        return {
          ...common,
          kind: 'Log',
          message: view.template('format', true),
          level: view.enumOf('level', LOG_LEVELS, 'INFO'),
        };
      case TASK_TYPES.Return:
        return { ...common, kind: 'Return', format: view.template('format', true) };
      case TASK_TYPES.OutputValues: {
        if (!view.has('values')) view.required('values');
        return { ...common, kind: 'OutputValues', values: view.valueRecord('values') ?? {} };
      }
      case TASK_TYPES.Sleep:
        return { ...common, kind: 'Sleep', durationMs: view.duration('duration', { required: true }) };
      case TASK_TYPES.HttpRequest:
        return dropUndefined<HttpRequestTask>({
          ...common,
          kind: 'HttpRequest',
          uri: view.template('uri', true),
          method: view.enumOf('method', HTTP_METHODS, 'GET'),
          headers: view.stringRecord('headers'),
          body: view.value('body'),
          contentType: view.string('contentType'),
        });
      case TASK_TYPES.ShellCommands:
        return dropUndefined({
          ...common,
          kind: 'ShellCommands' as const,
          commands: view.stringList('commands', { required: true, nonEmpty: true }) ?? [],
          env: view.stringRecord('env'),
          inputFiles: view.stringRecord('inputFiles'),
          outputFiles: view.stringList('outputFiles'),
          namespaceFiles: readNamespaceFiles(view),
        });
      case TASK_TYPES.NodeScript:
        return dropUndefined({
          ...common,
          kind: 'NodeScript' as const,
          script: view.template('script', true),
          env: view.stringRecord('env'),
          inputFiles: view.stringRecord('inputFiles'),
          outputFiles: view.stringList('outputFiles'),
          namespaceFiles: readNamespaceFiles(view),
        });
      case TASK_TYPES.StorageWrite:
        return {
          ...common,
          kind: 'StorageWrite',
          content: view.template('content', true),
          extension: view.template('extension') ?? '.ion',
        };
      case TASK_TYPES.StorageSize:
        return { ...common, kind: 'StorageSize', uri: view.template('uri', true) };
      case TASK_TYPES.StorageDelete:
        return {
          ...common,
          kind: 'StorageDelete',
          uri: view.template('uri', true),
          errorOnMissing: view.boolean('errorOnMissing', false),
        };
      case TASK_TYPES.StorageConcat:
        return dropUndefined({
          ...common,
          kind: 'StorageConcat' as const,
          files: this.concatFiles(view),
          separator: view.template('separator'),
          extension: view.template('extension') ?? '.tmp',
        });
      case TASK_TYPES.StorageSplit:
        return {
          ...common,
          kind: 'StorageSplit',
          from: view.template('from', true),
          by: this.splitBy(view),
          separator: view.template('separator') ?? '\n',
        };
      case TASK_TYPES.PurgeCurrentExecutionFiles:
        return { ...common, kind: 'PurgeCurrentExecutionFiles' };
      case TASK_TYPES.LocalFiles:
        return dropUndefined({
          ...common,
          kind: 'LocalFiles' as const,
          inputs: view.stringRecord('inputs'),
          outputs: view.stringList('outputs'),
        });
      default:
        return undefined;
    }
  }

  /** Split's one way of cutting: `bytes`, `rows` or `partitions` (a number or a template). */
  private splitBy(view: ObjectView): StorageSplitTask['by'] {
    const given = (['bytes', 'rows', 'partitions'] as const).filter((key) => view.has(key));
    if (given.length !== 1) {
      view.report(
        given[1] ?? 'bytes',
        given.length === 0
          ? 'one of bytes, rows or partitions is required'
          : `only one of bytes, rows or partitions may be given (found ${given.join(', ')})`,
      );
      return { kind: 'rows', value: '1' };
    }
    const kind = given[0];
    const node = view.node(kind);
    const value = isScalar(node) && typeof node.value === 'number' ? String(node.value) : view.template(kind, true);
    return { kind, value };
  }

  /** Kestra's Concat takes a list of URIs or one template rendering to a JSON list of them. */
  private concatFiles(view: ObjectView): StorageConcatTask['files'] {
    const node = view.node('files');
    if (node === undefined) {
      view.required('files');
      return [];
    }
    if (isScalar(node) && typeof node.value === 'string') return node.value;
    return view.stringList('files', { nonEmpty: true }) ?? [];
  }

  /** Kestra's Parallel calls it `concurrent`; `concurrency` is Lanner's older name. */
  private parallelConcurrency(view: ObjectView): number {
    if (view.has('concurrent') && view.has('concurrency')) {
      view.report('concurrency', "is another name of 'concurrent'; set only one of them");
    }
    if (view.has('concurrency')) return view.integer('concurrency', { min: 0, fallback: 0 });
    return view.integer('concurrent', { min: 0, fallback: 0 });
  }

  private subflowOutputs(view: ObjectView): Record<string, TemplatedValue> | undefined {
    if (!view.has('outputs')) return undefined;
    view.warn(
      'outputs',
      "is deprecated: declare the child flow's own 'outputs' instead (this map is read only when it declares none)",
    );
    return view.valueRecord('outputs');
  }

  /** A mapping, a `{ key, value }` list, or a template rendering to a JSON object (read when the task runs). */
  private labelsTaskLabels(view: ObjectView): LabelsTask['labels'] {
    const node = view.node('labels');
    if (node === undefined) {
      view.required('labels');
      return {};
    }
    if (isScalar(node) && typeof node.value === 'string') return node.value;
    return view.labels('labels') ?? {};
  }

  private logMessage(view: ObjectView): LogTask['message'] {
    // Kestra's Log takes one message or a list of them.
    const node = view.node('message');
    if (node === undefined) {
      view.required('message');
      return '';
    }
    if (isSeq(node)) {
      return view.stringList('message', { nonEmpty: true }) ?? [];
    }
    return view.template('message', true);
  }

  private switchCases(view: ObjectView, depth: number): Record<string, Task[]> {
    const node = view.node('cases');
    if (node === undefined) {
      view.required('cases');
      return {};
    }
    const cases = this.source.object(node, view.at('cases'), 'a mapping of case values to task lists');
    if (!cases) return {};
    const entries: [string, Task[]][] = [];
    for (const key of cases.keys()) {
      entries.push([key, this.taskList(cases, key, { required: true, depth }) ?? []]);
    }
    return Object.fromEntries(entries);
  }

  private forEach(view: ObjectView, common: TaskCommon, depth: number, valuesKey: string, concurrencyLimit: number): ForEachTask {
    let values: TemplatedValue = [];
    const node = view.node(valuesKey);
    if (node === undefined) view.required(valuesKey);
    else {
      const value = view.value(valuesKey);
      if (typeof value === 'string' || Array.isArray(value)) values = value;
      else if (value !== undefined) view.report(valuesKey, 'must be a list or a string holding a JSON list');
    }
    return {
      ...common,
      // EachSequential / EachParallel keep their type name but run as a ForEach.
      kind: 'ForEach',
      values,
      concurrencyLimit,
      tasks: this.taskList(view, 'tasks', { required: true, depth }) ?? [],
      ...this.branches(view, depth),
    };
  }

  private dag(view: ObjectView, common: TaskCommon, depth: number): DagTask {
    const entries: { task: Task; dependsOn: string[]; path: string; node: Node }[] = [];
    const node = view.node('tasks');
    if (node === undefined) view.required('tasks');
    else {
      const items = this.source.list(node, view.at('tasks'), 'a list of { task, dependsOn }') ?? [];
      if (items.length === 0) view.report('tasks', 'must contain at least one task');
      for (const item of items) {
        const entry = this.source.object(item.node, item.path, 'a mapping with a task and its dependsOn');
        if (!entry) continue;
        entry.rejectUnknown(['task', 'dependsOn'], 'a Dag task');
        const taskNode = entry.node('task');
        if (taskNode === undefined) entry.required('task');
        const task = taskNode === undefined ? undefined : this.task(taskNode, entry.at('task'), depth);
        const dependsOn = entry.stringList('dependsOn') ?? [];
        if (task) entries.push({ task, dependsOn, path: item.path, node: entry.position('dependsOn') });
      }
    }
    checkDagDependencies(this.source, view, entries);
    return {
      ...common,
      kind: 'Dag',
      tasks: entries.map(({ task, dependsOn }) => ({ task, dependsOn })),
      concurrency: view.integer('concurrency', { min: 0, fallback: 0 }),
      ...this.branches(view, depth),
    };
  }

  private checkFrequency(view: ObjectView): { intervalMs: number; maxIterations?: number; maxDurationMs?: number } {
    // Kestra's defaults: every second, at most 100 iterations, at most one hour.
    const defaults = { intervalMs: 1000, maxIterations: 100, maxDurationMs: 3_600_000 };
    const node = view.node('checkFrequency');
    if (node === undefined) return defaults;
    const frequency = this.source.object(node, view.at('checkFrequency'));
    if (!frequency) return defaults;
    frequency.rejectUnknown(['interval', 'maxIterations', 'maxDuration'], 'checkFrequency');
    return {
      intervalMs: frequency.duration('interval', { positive: true }) ?? defaults.intervalMs,
      maxIterations: frequency.integer('maxIterations', { min: 1, fallback: defaults.maxIterations }),
      maxDurationMs: frequency.duration('maxDuration', { positive: true }) ?? defaults.maxDurationMs,
    };
  }

  private pause(view: ObjectView, common: TaskCommon, depth: number): Task {
    if (view.has('pauseDuration') && view.has('delay')) {
      view.report('delay', "is the old name of 'pauseDuration'; set only one of them");
    }
    const pauseDurationMs = durationSpec(view, 'pauseDuration') ?? durationSpec(view, 'delay');
    const onResume = view.has('onResume') ? readInputList(this.source, view, 'onResume') : undefined;
    if (view.has('tasks')) view.warn('tasks', 'is deprecated: put the tasks to run after the resume after the Pause instead');
    // On a Pause, Kestra's `timeout` bounds the wait for a resume.
    const { timeoutMs, ...rest } = common;
    return dropUndefined({
      ...rest,
      kind: 'Pause' as const,
      pauseDurationMs,
      pauseTimeoutMs: timeoutMs ?? durationSpec(view, 'timeout'),
      onResume,
      tasks: this.taskList(view, 'tasks', { depth }),
      errors: this.taskList(view, 'errors', { depth }),
    });
  }
}

/** True when the property is a string holding `{{ }}` (rendered when used). */
function isTemplated(view: ObjectView, key: string): boolean {
  const node = view.node(key);
  return node !== undefined && isScalar(node) && typeof node.value === 'string' && node.value.includes('{{');
}

/** An ISO-8601 duration (milliseconds), or a template rendering to one when the task runs. */
function durationSpec(view: ObjectView, key: string): DurationSpec | undefined {
  return isTemplated(view, key) ? view.string(key) : view.duration(key, { positive: true });
}

/** Dag `dependsOn` names sibling tasks only, and the dependencies form no cycle. */
function checkDagDependencies(
  source: FlowSource,
  view: ObjectView,
  entries: readonly { task: Task; dependsOn: readonly string[]; path: string; node: Node }[],
): void {
  const siblings = new Set(entries.map((entry) => entry.task.id));
  for (const entry of entries) {
    entry.dependsOn.forEach((dependency, index) => {
      if (!siblings.has(dependency)) {
        source.report(
          `${entry.path}.dependsOn[${index}]`,
          `unknown task '${dependency}': dependsOn must name a task of the same Dag`,
          entry.node,
        );
      }
    });
  }
  const graph = new Map(entries.map((entry) => [entry.task.id, entry.dependsOn.filter((d) => siblings.has(d))]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (id: string): void => {
    state.set(id, 'visiting');
    stack.push(id);
    for (const next of graph.get(id) ?? []) {
      const seen = state.get(next);
      if (seen === 'visiting') {
        const cycle = [...stack.slice(stack.indexOf(next)), next];
        const signature = [...new Set(cycle)].sort().join(',');
        if (!reported.has(signature)) {
          reported.add(signature);
          source.report(view.at('tasks'), `dependency cycle: ${cycle.join(' -> ')}`, view.position('tasks'));
        }
      } else if (seen === undefined) visit(next);
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of graph.keys()) if (!state.has(id)) visit(id);
}

const RETRY_TYPES = ['constant', 'exponential', 'random'] as const;
const RETRY_BEHAVIORS: readonly RetryBehavior[] = ['RETRY_FAILED_TASK', 'CREATE_NEW_EXECUTION'];
const RETRY_COMMON_KEYS = ['type', 'maxAttempt', 'maxAttempts', 'maxDuration', 'behavior', 'warningOnRetry'];

/** Kestra's `namespaceFiles: { enabled, include, exclude }` (enabled by default once written). */
function readNamespaceFiles(owner: ObjectView): NamespaceFilesSpec | undefined {
  const node = owner.node('namespaceFiles');
  if (node === undefined) return undefined;
  const view = owner.source.object(node, owner.at('namespaceFiles'));
  if (!view) return undefined;
  view.rejectUnknown(['enabled', 'include', 'exclude'], 'namespaceFiles');
  const include = view.stringList('include');
  const exclude = view.stringList('exclude');
  return {
    enabled: view.boolean('enabled', true),
    ...(include === undefined ? {} : { include }),
    ...(exclude === undefined ? {} : { exclude }),
  };
}

export function readRetry(owner: ObjectView, key: string): RetryPolicy | undefined {
  const node = owner.node(key);
  if (node === undefined) return undefined;
  const view = owner.source.object(node, owner.at(key));
  if (!view) return undefined;
  const type = view.enumOf('type', RETRY_TYPES);
  if (!view.has('type')) view.required('type');
  const ownKeys = {
    constant: ['interval'],
    exponential: ['interval', 'maxInterval', 'delayFactor'],
    random: ['minInterval', 'maxInterval'],
  };
  if (type !== undefined) view.rejectUnknown([...RETRY_COMMON_KEYS, ...ownKeys[type]], `a ${type} retry`);
  if (view.has('maxAttempts')) {
    if (view.has('maxAttempt')) view.report('maxAttempts', "is another spelling of 'maxAttempt'; set only one of them");
    else view.warn('maxAttempts', "is deprecated: Kestra's name is 'maxAttempt'");
  }
  const common = dropUndefined({
    maxAttempts: view.integer('maxAttempt', { min: 1 }) ?? view.integer('maxAttempts', { min: 1 }),
    maxDurationMs: view.duration('maxDuration', { positive: true }),
    behavior: view.enumOf('behavior', RETRY_BEHAVIORS, 'RETRY_FAILED_TASK'),
    warningOnRetry: view.boolean('warningOnRetry', false),
  });
  switch (type) {
    case 'constant':
      return { ...common, type, intervalMs: view.duration('interval', { required: true }) };
    case 'exponential': {
      const intervalMs = view.duration('interval', { required: true });
      const maxIntervalMs = view.duration('maxInterval', { required: true });
      if (view.has('interval') && view.has('maxInterval') && maxIntervalMs < intervalMs) {
        view.report('maxInterval', 'must be >= interval');
      }
      const delayFactor = view.number('delayFactor', { min: 1 });
      return dropUndefined({ ...common, type, intervalMs, maxIntervalMs, delayFactor });
    }
    case 'random': {
      const minIntervalMs = view.duration('minInterval', { required: true });
      const maxIntervalMs = view.duration('maxInterval', { required: true });
      if (view.has('minInterval') && view.has('maxInterval') && maxIntervalMs < minIntervalMs) {
        view.report('maxInterval', 'must be >= minInterval');
      }
      return { ...common, type, minIntervalMs, maxIntervalMs };
    }
    default:
      return undefined;
  }
}

const SELECTOR_MATCHES: readonly SelectorMatch[] = ['ALL', 'ANY'];
const SELECTOR_FALLBACKS: readonly SelectorFallback[] = ['FAIL', 'WAIT', 'CANCEL', 'IGNORE'];

export function readWorkerSelector(owner: ObjectView, key: string): WorkerSelectorSpec | undefined {
  const node = owner.node(key);
  if (node === undefined) return undefined;
  const view = owner.source.object(node, owner.at(key));
  if (!view) return undefined;
  view.rejectUnknown(['tags', 'match', 'fallback'], 'workerSelector');
  const tags = view.stringList('tags') ?? [];
  const fallback = view.enumOf('fallback', SELECTOR_FALLBACKS);
  if (fallback !== undefined && tags.length === 0) view.report('fallback', 'may only be set when tags is not empty');
  return dropUndefined({ tags, match: view.enumOf('match', SELECTOR_MATCHES, 'ALL'), fallback });
}

/** Leaves optional properties out instead of setting them to `undefined`. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
