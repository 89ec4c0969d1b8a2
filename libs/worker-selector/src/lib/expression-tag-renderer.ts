import { renderTag } from '@lanner/expressions';
import type { TagRenderer } from './tag-renderer';

/**
 * The production tag renderer: tags are rendered with Lanner's expression
 * language against the execution context. `now` is an argument because the
 * library has no clock: the executor passes the time of the decision.
 * A tag that renders blank or reads an absent value comes back null and is
 * dropped by `renderTags`.
 */
export function expressionTagRenderer(now: Date): TagRenderer {
  return (template, context) => renderTag(template, context, { now });
}
