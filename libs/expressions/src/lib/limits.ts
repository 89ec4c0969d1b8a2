/**
 * What one rendering may build and do. A template is written by a flow author and
 * evaluated inside Lanner's own processes, so nothing it builds may grow without
 * bound: `{% set a = a + a %}` fourteen times asks for more items than V8 can hold
 * and would kill the process instead of failing the task. Every size is checked
 * before the value is built; the work of filters and functions counts as steps.
 */
export interface ExpressionLimits {
  /** Characters of one text an expression builds (`~`, `join`, `replace`, `json`, printing a list). */
  readonly maxTextLength: number;
  /** Items of one list, or entries of one map, an expression builds (`+`, `split`, `fromJson`...). */
  readonly maxListLength: number;
  /** Characters one rendering outputs in all: every printed segment, loop bodies and `{% set %}` blocks included. */
  readonly maxRenderedLength: number;
  /**
   * Evaluation steps of one rendering: each template node evaluated is a step, and a
   * filter or function counts one step per ITEMS_PER_STEP items or characters it handles,
   * and each turn of a `{% for %}` loop is a step even when its body is empty.
   */
  readonly maxSteps: number;
  /** Numbers one `range()` builds. */
  readonly maxRangeLength: number;
}

/** The defaults: far above what a task property needs (a job is at most 4 MiB), far below what hurts a process. */
export const EXPRESSION_LIMITS: ExpressionLimits = {
  maxTextLength: 5_000_000,
  maxListLength: 1_000_000,
  maxRenderedLength: 10_000_000,
  maxSteps: 200_000,
  maxRangeLength: 10_000,
};

/**
 * How many items or characters a built-in handles for the price of one evaluation
 * step: a native loop over an item costs about a hundredth of evaluating a node, so
 * a rendering's filters and functions may handle 20,000,000 items or characters in all.
 */
export const ITEMS_PER_STEP = 100;

/** The limits of a rendering: the defaults, with what the caller overrides. */
export function limitsWith(overrides: Partial<ExpressionLimits> | undefined): ExpressionLimits {
  if (overrides === undefined) return EXPRESSION_LIMITS;
  const limits: { -readonly [K in keyof ExpressionLimits]: number } = { ...EXPRESSION_LIMITS };
  for (const key of Object.keys(EXPRESSION_LIMITS) as (keyof ExpressionLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    // A caller's mistake, not a flow author's: say which limit.
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`the expression limit ${key} must be a positive integer`);
    limits[key] = value;
  }
  return limits;
}

/** 1280000 -> "1,280,000": limits are read by people. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
