// The bounds a flow source is held to before it is parsed into a YAML document.
// Building the document costs far more than reading its tokens (a 1 MiB source of
// nested `[` or of half a million one-character items kept the API busy for over a
// second before its 422), so the tokens are counted first, by the YAML library's own
// lexer (which knows a `[` inside a quoted string or a `{{ }}` inside a plain scalar
// from a real one), and a source over a bound is refused as soon as it passes it.

import { CST, Lexer } from 'yaml';

/** Nesting a flow source may use: flowables nest a few levels per task, readers refuse values deeper than 100. */
export const MAX_YAML_DEPTH = 200;
/** Values (scalars, flow collections, aliases) one flow source may hold: a 5,000-task flow fits. */
export const MAX_YAML_NODES = 100_000;
/** Aliases (`*anchor`) one flow source may write. */
export const MAX_YAML_ALIASES = 1_000;

/** Why a source is refused and where (the offset where the bound was passed). */
export interface YamlBoundProblem {
  readonly message: string;
  readonly offset: number;
}

/**
 * The first bound the source passes, or undefined. Depth counts open `[`/`{` plus,
 * for block structure, the line's indentation and the `-`/`?` indicators on it (each
 * block level needs at least one of those), an upper bound of the real depth.
 */
export function checkYamlBounds(source: string): YamlBoundProblem | undefined {
  let offset = 0;
  let nodes = 0;
  let aliases = 0;
  let flowDepth = 0;
  let lineStart = true;
  let blockDepth = 0;
  for (const token of new Lexer().lex(source)) {
    const at = offset;
    // Markers the lexer adds (document and scalar starts) are not source text.
    if (token.length > 1 || !isMarker(token)) offset += token.length;
    switch (CST.tokenType(token)) {
      case 'newline':
        lineStart = true;
        blockDepth = 0;
        continue;
      case 'space':
        if (lineStart && flowDepth === 0) blockDepth = token.length;
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        blockDepth += 1;
        break;
      case 'flow-seq-start':
      case 'flow-map-start':
        flowDepth += 1;
        nodes += 1;
        break;
      case 'flow-seq-end':
      case 'flow-map-end':
        flowDepth = Math.max(0, flowDepth - 1);
        break;
      case 'alias':
        aliases += 1;
        nodes += 1;
        if (aliases > MAX_YAML_ALIASES)
          return { message: `the flow uses more than ${MAX_YAML_ALIASES.toLocaleString('en-US')} aliases`, offset: at };
        break;
      case 'scalar':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
        nodes += 1;
        break;
      default:
        break;
    }
    lineStart = false;
    if (flowDepth + blockDepth > MAX_YAML_DEPTH)
      return { message: `the YAML is nested deeper than ${MAX_YAML_DEPTH} levels`, offset: at };
    if (nodes > MAX_YAML_NODES)
      return { message: `the flow holds more than ${MAX_YAML_NODES.toLocaleString('en-US')} YAML values`, offset: at };
  }
  return undefined;
}

/** The lexer's one-character markers, not in the source: document start, scalar start, flow error end. */
function isMarker(token: string): boolean {
  return token === CST.DOCUMENT || token === CST.SCALAR || token === CST.FLOW_END;
}
