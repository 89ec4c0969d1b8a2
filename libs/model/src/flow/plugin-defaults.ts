// Kestra's `pluginDefaults` (and their old name `taskDefaults`): property values
// merged into every task whose type is the default's type or starts with it.
// A task's own values win, unless the default is `forced`. Mappings are merged
// key by key, at every depth; any other value is taken whole.

import { isMap, isScalar, Pair, YAMLMap, type Node } from 'yaml';
import { FlowSource, ObjectView } from './flow-source';

export interface PluginDefault {
  /** A task type, or a prefix of task types (`io.kestra.plugin.core.log`). */
  readonly type: string;
  readonly forced: boolean;
  /** The `values` mapping, as written. */
  readonly values: YAMLMap;
  /** YAML path of `values`, for problems about a property it sets. */
  readonly path: string;
}

/** Reads `pluginDefaults` and `taskDefaults` (both may be set; `taskDefaults` comes first, as in Kestra). */
export function readPluginDefaults(source: FlowSource, flow: ObjectView): PluginDefault[] {
  const defaults: PluginDefault[] = [];
  if (flow.has('taskDefaults')) flow.warn('taskDefaults', "is deprecated: write 'pluginDefaults'");
  for (const key of ['taskDefaults', 'pluginDefaults']) {
    const node = flow.node(key);
    if (node === undefined) continue;
    for (const item of source.list(node, flow.at(key), 'a list of { type, values, forced }') ?? []) {
      const view = source.object(item.node, item.path, 'a plugin default (a mapping with a type and values)');
      if (!view) continue;
      view.rejectUnknown(['type', 'values', 'forced'], 'a plugin default');
      const type = view.string('type', true);
      const forced = view.boolean('forced', false);
      const values = view.node('values');
      if (values === undefined) {
        view.required('values');
        continue;
      }
      if (!isMap(values)) {
        view.report('values', 'must be a mapping of task properties');
        continue;
      }
      if (type !== '') defaults.push({ type, forced, values, path: view.at('values') });
    }
  }
  return defaults;
}

/** Whether a default applies to a task of `type`: the same type, or a prefix of it. */
export function defaultApplies(defaultType: string, type: string): boolean {
  return type === defaultType || type.startsWith(defaultType.endsWith('.') ? defaultType : `${defaultType}.`);
}

/**
 * The task mapping with the matching defaults merged in. Non-forced defaults
 * fill what the task leaves out (the first listed wins); forced ones override
 * the task (the first listed wins). `allowed` is what the task type knows: a
 * default for exactly this type that sets anything else is a problem, one for
 * a prefix of types only gives each type the properties it has.
 */
export function mergeDefaults(
  source: FlowSource,
  task: Node,
  type: string,
  writtenType: string,
  defaults: readonly PluginDefault[],
  allowed: readonly string[],
): Node {
  if (!isMap(task)) return task;
  const matching = defaults.filter((d) => defaultApplies(d.type, type) || defaultApplies(d.type, writtenType));
  if (matching.length === 0) return task;
  let merged: YAMLMap = task;
  for (const pluginDefault of matching) {
    const exact = pluginDefault.type === type || pluginDefault.type === writtenType;
    const values = new YAMLMap();
    for (const pair of pluginDefault.values.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === undefined) continue;
      if (key === 'id' || key === 'type' || !allowed.includes(key)) {
        if (exact) source.report(`${pluginDefault.path}.${key}`, `unknown property '${key}' for ${type}`, pair.key as Node);
        continue;
      }
      values.items.push(pair);
    }
    merged = pluginDefault.forced ? mergeMaps(values, merged) : mergeMaps(merged, values);
  }
  // Problems about the task as a whole point to the task.
  merged.range = task.range;
  return merged;
}

/** `winner` with what `filler` adds: keys it lacks, and mappings on both sides merged. */
function mergeMaps(winner: YAMLMap, filler: YAMLMap): YAMLMap {
  const result = new YAMLMap();
  result.range = winner.range ?? filler.range;
  result.flow = winner.flow;
  const fillerByKey = new Map<string, Pair>();
  for (const pair of filler.items) if (isScalar(pair.key)) fillerByKey.set(String(pair.key.value), pair as Pair);
  const seen = new Set<string>();
  for (const pair of winner.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    if (key === undefined) {
      result.items.push(pair);
      continue;
    }
    seen.add(key);
    const other = fillerByKey.get(key);
    if (other !== undefined && isMap(pair.value) && isMap(other.value)) {
      result.items.push(new Pair(pair.key, mergeMaps(pair.value, other.value)));
    } else result.items.push(pair);
  }
  for (const [key, pair] of fillerByKey) if (!seen.has(key)) result.items.push(pair);
  return result;
}
