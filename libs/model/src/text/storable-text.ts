import { childPath, itemPath } from '../flow/yaml-path';

/**
 * Text Lanner cannot store: PostgreSQL refuses the NUL character in `text` and
 * `jsonb` values, and a UTF-16 surrogate without its pair is not a Unicode
 * character at all (it has no UTF-8 form). Such text is refused or replaced
 * where it enters Lanner (rendered task properties, task outputs, logs, API
 * inputs), so it never reaches a write that would fail every retry.
 */
export interface UnstorableText {
  /** Where in the value, as property access (`vars.items[2]`); '' for the value itself. */
  readonly path: string;
  /** What was found, e.g. "a NUL character (U+0000)". */
  readonly found: string;
  /** True when the character is in a property name rather than a value. */
  readonly inKey: boolean;
}

const REPLACEMENT = '\uFFFD';

/** The first character of `text` Lanner cannot store: its 0-based index and what it is; undefined when all can be stored. */
export function findUnstorableCharacter(text: string): { readonly index: number; readonly found: string } | undefined {
  // Callers pass what a parser gave them; a missing value holds nothing unstorable (and must not throw).
  if (typeof text !== 'string') return undefined;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0) return { index, found: 'a NUL character (U+0000)' };
    if (code >= 0xd800 && code <= 0xdbff) {
      const following = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
      if (following >= 0xdc00 && following <= 0xdfff) {
        index += 1;
        continue;
      }
      return { index, found: loneSurrogate(code) };
    }
    if (code >= 0xdc00 && code <= 0xdfff) return { index, found: loneSurrogate(code) };
  }
  return undefined;
}

function loneSurrogate(code: number): string {
  return `a lone surrogate (U+${code.toString(16).toUpperCase()}, not Unicode)`;
}

/** What the first unstorable character of `text` is; undefined when it can be stored. */
export function unstorableCharacterIn(text: string): string | undefined {
  return findUnstorableCharacter(text)?.found;
}

/**
 * The first string (or property name) in a JSON-like value that Lanner cannot
 * store, with its path; undefined when everything can be stored. Walks the
 * value once, without recursion limits of its own: values here were parsed
 * from JSON or built by a bounded renderer.
 */
export function findUnstorableText(value: unknown, path = ''): UnstorableText | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path }];
  while (pending.length > 0) {
    const { value: current, path: at } = pending.pop() as { value: unknown; path: string };
    if (typeof current === 'string') {
      const found = unstorableCharacterIn(current);
      if (found !== undefined) return { path: at, found, inKey: false };
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1)
        pending.push({ value: current[index], path: itemPath(at, index) });
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, child] = entries[index];
        const keyPath = childPath(at, key);
        const found = unstorableCharacterIn(key);
        if (found !== undefined) return { path: keyPath, found, inKey: true };
        pending.push({ value: child, path: keyPath });
      }
    }
  }
  return undefined;
}

/** One line for users: "outputs.value holds a NUL character (U+0000)". */
export function describeUnstorableText(problem: UnstorableText, what: string): string {
  const where = problem.path === '' ? what : `${what} ${problem.path}`;
  return problem.inKey ? `the property name ${where} holds ${problem.found}` : `${where} holds ${problem.found}`;
}

/**
 * The text with each unstorable character replaced by U+FFFD, for text where a
 * lost control character matters less than the rest (log lines, error messages).
 * Returns the same string when nothing needs replacing.
 */
export function toStorableText(text: string): string {
  if (unstorableCharacterIn(text) === undefined) return text;
  let result = '';
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0) {
      result += REPLACEMENT;
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const following = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
      if (following >= 0xdc00 && following <= 0xdfff) {
        result += text[index] + text[index + 1];
        index += 1;
      } else {
        result += REPLACEMENT;
      }
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      result += REPLACEMENT;
    } else {
      result += text[index];
    }
  }
  return result;
}
