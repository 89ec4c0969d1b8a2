// A flow's topology as nodes and edges, read from the parsed flow the API returns:
// one node per task; a flowable's node leads to its branches (in order for a
// sequence, side by side for Parallel, by `dependsOn` for a Dag, labelled for
// If, Switch, errors and finally); siblings in a sequence follow each other.

export interface GraphNode {
  readonly id: string;
  readonly taskId: string;
  readonly type: string;
  readonly flowable: boolean;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly label?: string;
}

export interface FlowGraph {
  readonly nodes: GraphNode[];
  readonly edges: GraphEdge[];
}

type Json = Record<string, unknown>;

const isTask = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && typeof (value as Json)['id'] === 'string';
const tasksOf = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isTask) : []);

/** The short name of a task type (`io.kestra.plugin.core.flow.Parallel` → `Parallel`). */
export const shortType = (type: string) => type.slice(type.lastIndexOf('.') + 1);

export function flowGraph(flow: { tasks?: unknown; errors?: unknown; finally?: unknown }): FlowGraph {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];

  const add = (task: Json): string => {
    const id = String(task['id']);
    const type = typeof task['type'] === 'string' ? task['type'] : '';
    const branches = branchesOf(task);
    nodes.push({ id, taskId: id, type, flowable: branches.length > 0 });
    for (const branch of branches) {
      if (branch.kind === 'dag') {
        const ids = new Set(branch.items.map((item) => String(item.task['id'])));
        for (const item of branch.items) {
          const child = add(item.task);
          const dependsOn = item.dependsOn.filter((dependency) => ids.has(dependency));
          if (dependsOn.length === 0) edges.push({ from: id, to: child });
          for (const dependency of dependsOn) edges.push({ from: dependency, to: child });
        }
      } else if (branch.kind === 'parallel') {
        for (const child of branch.tasks) edges.push({ from: id, to: add(child), label: branch.label });
      } else {
        const first = sequence(branch.tasks);
        if (first) edges.push({ from: id, to: first, label: branch.label });
      }
    }
    return id;
  };

  /** Adds a sequence's tasks, each leading to the next; returns the first one's id. */
  const sequence = (tasks: Json[]): string | undefined => {
    let previous: string | undefined;
    let first: string | undefined;
    for (const task of tasks) {
      const id = add(task);
      if (previous) edges.push({ from: previous, to: id });
      first ??= id;
      previous = id;
    }
    return first;
  };

  sequence(tasksOf(flow.tasks));
  for (const [label, tasks] of [
    ['errors', flow.errors],
    ['finally', flow.finally],
  ] as const) {
    const chain = tasksOf(tasks);
    if (chain.length === 0) continue;
    const root = `(${label})`;
    nodes.push({ id: root, taskId: root, type: label, flowable: true });
    const first = sequence(chain);
    if (first) edges.push({ from: root, to: first });
  }
  return { nodes, edges };
}

type Branch =
  | { kind: 'sequence'; tasks: Json[]; label?: string }
  | { kind: 'parallel'; tasks: Json[]; label?: string }
  | { kind: 'dag'; items: { task: Json; dependsOn: string[] }[] };

function branchesOf(task: Json): Branch[] {
  const type = shortType(String(task['type'] ?? ''));
  const branches: Branch[] = [];
  if (type === 'Dag') {
    const items = (Array.isArray(task['tasks']) ? task['tasks'] : []).flatMap((item: unknown) => {
      const entry = item as Json;
      if (!isTask(entry?.['task'])) return [];
      return [
        { task: entry['task'] as Json, dependsOn: Array.isArray(entry['dependsOn']) ? entry['dependsOn'].map(String) : [] },
      ];
    });
    if (items.length > 0) branches.push({ kind: 'dag', items });
  } else if (type === 'Parallel') {
    branches.push({ kind: 'parallel', tasks: tasksOf(task['tasks']) });
  } else if (Array.isArray(task['tasks'])) {
    branches.push({ kind: 'sequence', tasks: tasksOf(task['tasks']) });
  }
  if (Array.isArray(task['then'])) branches.push({ kind: 'sequence', tasks: tasksOf(task['then']), label: 'then' });
  if (Array.isArray(task['else'])) branches.push({ kind: 'sequence', tasks: tasksOf(task['else']), label: 'else' });
  const cases = task['cases'];
  if (cases && typeof cases === 'object' && !Array.isArray(cases)) {
    for (const [name, tasks] of Object.entries(cases as Json))
      branches.push({ kind: 'sequence', tasks: tasksOf(tasks), label: name });
  }
  if (Array.isArray(task['errors'])) branches.push({ kind: 'sequence', tasks: tasksOf(task['errors']), label: 'errors' });
  if (Array.isArray(task['finally'])) branches.push({ kind: 'sequence', tasks: tasksOf(task['finally']), label: 'finally' });
  return branches.filter((branch) => branch.kind === 'dag' || branch.tasks.length > 0);
}
