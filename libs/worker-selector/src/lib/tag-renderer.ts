/**
 * Selector tags are templates (`"{{ inputs.region }}"`). The template language
 * itself belongs to `@lanner/expressions`; this lib only needs a function that
 * renders one tag, so it takes one as an argument and stays independent of it.
 */

/** The execution context a tag is rendered against (inputs, labels, flow, ...). */
export type TagRenderContext = Readonly<Record<string, unknown>>;

/**
 * Renders one tag template against the execution context.
 * Returns the rendered tag, or `null`/`undefined` when the expression has no
 * value; a null, undefined or blank result drops the tag from the selector.
 * May throw when the template is invalid: the caller owns that error.
 * Must be pure (no I/O, no clock): the resolver calls it on every decision.
 */
export type TagRenderer = (template: string, context: TagRenderContext) => string | null | undefined;

/** Thrown by `literalTagRenderer` for a tag that needs the template language. */
export class TagTemplateNotSupported extends Error {
  constructor(readonly template: string) {
    super(`tag '${template}' is a template, but no template renderer was provided`);
    this.name = 'TagTemplateNotSupported';
  }
}

/**
 * The default renderer: literal tags only. A tag containing `{{` is refused
 * rather than passed through, because routing on the raw text of a template
 * would silently send the task run to the wrong (or no) queue.
 */
export const literalTagRenderer: TagRenderer = (template) => {
  if (template.includes('{{')) throw new TagTemplateNotSupported(template);
  return template;
};

/**
 * Renders every tag, trims it, drops the null and blank ones and removes
 * duplicates (two templates may render to the same value). Order is kept.
 */
export function renderTags(templates: readonly string[], renderer: TagRenderer, context: TagRenderContext): string[] {
  const rendered: string[] = [];
  for (const template of templates) {
    const value = renderer(template, context);
    if (value === null || value === undefined) continue;
    const tag = value.trim();
    if (tag.length === 0 || rendered.includes(tag)) continue;
    rendered.push(tag);
  }
  return rendered;
}
