import { findUnstorableCharacter } from '@lanner/model';
import type { ProblemEntry } from './api-errors';

// PostgreSQL stores neither a NUL character (in text nor in jsonb) nor a lone
// UTF-16 surrogate (it is not Unicode), and a JSON value nested without bound
// overflows the stack of whoever serialises it. Text entering through the API
// is checked here, where it enters, so such values are refused with a path
// instead of failing deep in a query.

/** Deeper JSON is refused: flow inputs and labels never need it, and serialising it is recursive. */
export const MAX_JSON_DEPTH = 64;

/** At most this many problems are listed for one value; the first ones say enough. */
const MAX_PROBLEMS = 20;

/** The first character of `text` that cannot be stored: its 0-based index, and what it is. */
export function findUnstorable(text: string): { readonly index: number; readonly character: string } | undefined {
  const found = findUnstorableCharacter(text);
  return found === undefined ? undefined : { index: found.index, character: found.found };
}

/** Why this text cannot be stored, or undefined when it can. */
export function unstorableText(text: string): string | undefined {
  const found = findUnstorable(text);
  return found === undefined ? undefined : `contains ${found.character} at character ${found.index + 1}`;
}

/**
 * Every string (value or key) of a JSON-like value that cannot be stored, and
 * every place nested deeper than MAX_JSON_DEPTH, each with its path
 * (`inputs.who`, `labels`, `tasks[0].message`). Iterative, so a deep value
 * cannot overflow the stack here either.
 */
export function unstorableTextProblems(value: unknown, rootPath = ''): ProblemEntry[] {
  const problems: ProblemEntry[] = [];
  const named = (path: string) => (path === '' ? '$' : path);
  // A stack popped in document order; `key` is the object key leading to the value, checked on the way in.
  const pending: Pending[] = [{ value, path: rootPath, depth: 0 }];
  while (pending.length > 0 && problems.length < MAX_PROBLEMS) {
    const { value: current, path, depth, key } = pending.pop() as Pending;
    const keyReason = key === undefined ? undefined : unstorableText(key.name);
    if (keyReason !== undefined && key !== undefined) {
      problems.push({ path: named(key.objectPath), message: `has a key that ${keyReason}` });
      continue;
    }
    if (typeof current === 'string') {
      const reason = unstorableText(current);
      if (reason !== undefined) problems.push({ path: named(path), message: reason });
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      problems.push({ path: named(path), message: `is nested deeper than ${MAX_JSON_DEPTH} levels` });
      continue;
    }
    const children: Pending[] = Array.isArray(current)
      ? current.map((item, index) => ({ value: item, path: `${path}[${index}]`, depth: depth + 1 }))
      : Object.entries(current).map(([name, item]) => ({
          value: item,
          path: path === '' ? name : `${path}.${name}`,
          depth: depth + 1,
          key: { name, objectPath: path },
        }));
    for (let index = children.length - 1; index >= 0; index -= 1) pending.push(children[index]);
  }
  return problems;
}

interface Pending {
  readonly value: unknown;
  readonly path: string;
  readonly depth: number;
  readonly key?: { readonly name: string; readonly objectPath: string };
}
