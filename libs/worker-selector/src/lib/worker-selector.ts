/**
 * The worker selector a task, flow, namespace or tenant declares, and the rule
 * that picks which of those declarations applies to a task run.
 */

export type SelectorMatch = 'ALL' | 'ANY';
export type SelectorFallback = 'FAIL' | 'WAIT' | 'CANCEL' | 'IGNORE';

export const SELECTOR_MATCHES: readonly SelectorMatch[] = ['ALL', 'ANY'];
export const SELECTOR_FALLBACKS: readonly SelectorFallback[] = ['FAIL', 'WAIT', 'CANCEL', 'IGNORE'];

/** Decision (WORKERS.md): a selector without `match` requires every tag. */
export const DEFAULT_MATCH: SelectorMatch = 'ALL';
/** Decision (WORKERS.md): a selector without `fallback` waits for a worker. */
export const DEFAULT_FALLBACK: SelectorFallback = 'WAIT';

export interface WorkerSelector {
  /** Tag templates, rendered against the execution context before matching. */
  tags: string[];
  match?: SelectorMatch;
  fallback?: SelectorFallback;
}

/** One problem found while validating user input; `path` points into that input. */
export interface ValidationProblem {
  path: string;
  message: string;
}

/** Where the selector that applies to a task run was declared. */
export type SelectorLevel = 'TASK' | 'FLOW' | 'NAMESPACE' | 'TENANT' | 'NONE';

export interface SelectorDeclarations {
  /** The task's own `workerSelector`, if it declares one. */
  task?: WorkerSelector | null;
  /** The flow's `workerSelector`, if it declares one. */
  flow?: WorkerSelector | null;
  /** The flow's namespace, e.g. `company.team.etl`. */
  namespace: string;
  /** Selectors declared in namespace settings, keyed by namespace (`company`, `company.team`, ...). */
  namespaces: ReadonlyMap<string, WorkerSelector>;
  /** The tenant's default selector, if it declares one. */
  tenant?: WorkerSelector | null;
}

export interface ResolvedSelector {
  /** The winning selector, or undefined when no level declares one (the task goes to `default`). */
  selector: WorkerSelector | undefined;
  level: SelectorLevel;
  /** For `NAMESPACE`: which ancestor declared it. */
  namespace?: string;
}

/**
 * Most-specific-first: task, flow, the nearest namespace ancestor, tenant.
 * The first level that declares a selector wins as a whole: its tags, match and
 * fallback are never merged with those of a less specific level, so a flow-level
 * `fallback: FAIL` cannot leak into a task that declares its own selector.
 */
export function resolveSelector(declarations: SelectorDeclarations): ResolvedSelector {
  if (declarations.task) return { selector: declarations.task, level: 'TASK' };
  if (declarations.flow) return { selector: declarations.flow, level: 'FLOW' };
  for (const ancestor of namespaceAncestors(declarations.namespace)) {
    const selector = declarations.namespaces.get(ancestor);
    if (selector) return { selector, level: 'NAMESPACE', namespace: ancestor };
  }
  if (declarations.tenant) return { selector: declarations.tenant, level: 'TENANT' };
  return { selector: undefined, level: 'NONE' };
}

/** `a.b.c` -> [`a.b.c`, `a.b`, `a`]: the namespace itself first, then each parent. */
export function namespaceAncestors(namespace: string): string[] {
  const ancestors: string[] = [];
  let current = namespace;
  while (current.length > 0) {
    ancestors.push(current);
    const cut = current.lastIndexOf('.');
    current = cut < 0 ? '' : current.slice(0, cut);
  }
  return ancestors;
}

/**
 * Checks a selector as declared (before rendering). `pathPrefix` is where the
 * selector sits in the caller's document, e.g. `tasks[2].workerSelector`.
 * Accepts unknown input because selectors arrive from parsed YAML/JSON.
 */
export function validateWorkerSelector(input: unknown, pathPrefix = ''): ValidationProblem[] {
  const at = (field: string): string => (pathPrefix ? `${pathPrefix}.${field}` : field);
  const problems: ValidationProblem[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return [{ path: pathPrefix || '$', message: 'must be an object with tags, match and fallback' }];
  }
  const selector = input as Record<string, unknown>;
  for (const key of Object.keys(selector)) {
    if (key !== 'tags' && key !== 'match' && key !== 'fallback') {
      problems.push({ path: at(key), message: 'is not a known field of a worker selector' });
    }
  }
  const tags = selector['tags'];
  let declaredTags = 0;
  if (tags === undefined) {
    problems.push({ path: at('tags'), message: 'is required (use an empty list for the default queue)' });
  } else if (!Array.isArray(tags)) {
    problems.push({ path: at('tags'), message: 'must be a list of tags' });
  } else {
    declaredTags = tags.length;
    tags.forEach((tag: unknown, i) => {
      if (typeof tag !== 'string') problems.push({ path: `${at('tags')}[${i}]`, message: 'must be a string' });
    });
  }
  const match = selector['match'];
  if (match !== undefined && !SELECTOR_MATCHES.includes(match as SelectorMatch)) {
    problems.push({ path: at('match'), message: `must be one of ${SELECTOR_MATCHES.join(', ')}` });
  }
  const fallback = selector['fallback'];
  if (fallback !== undefined) {
    if (!SELECTOR_FALLBACKS.includes(fallback as SelectorFallback)) {
      problems.push({ path: at('fallback'), message: `must be one of ${SELECTOR_FALLBACKS.join(', ')}` });
    } else if (declaredTags === 0 && Array.isArray(tags)) {
      problems.push({ path: at('fallback'), message: 'may only be set when tags is not empty' });
    }
  }
  return problems;
}

/** Thrown by callers that need a valid selector and were given an invalid one. */
export class InvalidWorkerSelector extends Error {
  constructor(readonly problems: readonly ValidationProblem[]) {
    super(`invalid worker selector: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
    this.name = 'InvalidWorkerSelector';
  }
}
