/**
 * The bounds of one rendering (limits.ts), kept as it runs: the work done so far, the
 * characters output so far, and the checks each operation makes before it builds a
 * value. A check that fails throws LimitExceeded, which the evaluator turns into an
 * error naming the expression and its position.
 */
import { ExpressionLimits, ITEMS_PER_STEP, formatCount } from './limits';
import { isDataMap, toJson, toText } from './values';

/** A limit of the rendering was reached; `reason` names the limit, never a value. */
export class LimitExceeded {
  constructor(readonly reason: string) {}
}

/** What operations that walk values (equality, hashing) are charged to. */
export interface WorkMeter {
  charge(items: number): void;
}

export class Budget implements WorkMeter {
  /** In items: an evaluation step costs ITEMS_PER_STEP. */
  private work = 0;
  private readonly maxWork: number;
  private rendered = 0;

  constructor(readonly limits: ExpressionLimits) {
    this.maxWork = limits.maxSteps * ITEMS_PER_STEP;
  }

  /** One template node evaluated. */
  step(): void {
    this.charge(ITEMS_PER_STEP);
  }

  /** Items or characters a built-in handles. */
  charge(items: number): void {
    this.work += items;
    if (this.work > this.maxWork)
      throw new LimitExceeded(`the template does too much work (more than ${formatCount(this.limits.maxSteps)} steps)`);
  }

  /** Before building a list (or map) of `length` items; charges building it. */
  list(length: number, what: string): void {
    if (length > this.limits.maxListLength) {
      throw new LimitExceeded(
        `${what} would build a list of ${count(length)} items, which exceeds the limit of ${formatCount(this.limits.maxListLength)} items`,
      );
    }
    this.charge(length);
  }

  /** Before building a text of `length` characters (`atLeast`: a lower bound); charges building it. */
  text(length: number, what: string, atLeast = false): void {
    if (length > this.limits.maxTextLength) {
      throw new LimitExceeded(
        `${what} would build a text of ${atLeast ? 'at least ' : ''}${count(length)} characters, which exceeds the limit of ${formatCount(this.limits.maxTextLength)} characters`,
      );
    }
    this.charge(length);
  }

  /** Characters appended to the rendering's output (printed segments, text, captured blocks). */
  output(length: number): void {
    this.rendered += length;
    if (this.rendered > this.limits.maxRenderedLength) {
      throw new LimitExceeded(
        `the rendering would output ${count(this.rendered)} characters, which exceeds the limit of ${formatCount(this.limits.maxRenderedLength)} characters`,
      );
    }
  }

  /** How a value prints (toText), a list or map as JSON within the text limit. */
  print(value: unknown, what: string): string {
    return Array.isArray(value) || isDataMap(value) ? this.json(value, what) : toText(value);
  }

  /**
   * JSON of a value within the text limit. A lower bound of its length is counted
   * first, without building anything (a list holding the same big list many times is
   * cheap to hold and huge to print); escapes can make the text longer than that bound
   * by a small factor, which the check after stringifying catches.
   */
  json(value: unknown, what: string): string {
    const { atLeast, plain } = jsonLengthAtLeast(value, this.limits.maxTextLength, this);
    this.text(atLeast, what, true);
    // Plain JSON data (nearly always) needs no replacer, which would be called once per value.
    const json = plain ? JSON.stringify(value) : toJson(value);
    this.text(json.length, what);
    return json;
  }

  /** After parsing (fromJson, a rendered JSON array): every list and map in the value within the list limit. */
  listsWithin(value: unknown, what: string): void {
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const item = pending.pop();
      if (Array.isArray(item)) {
        this.list(item.length, what);
        for (const child of item) pending.push(child);
      } else if (isDataMap(item)) {
        const values = Object.values(item);
        this.list(values.length, what);
        for (const child of values) pending.push(child);
      }
    }
  }
}

/**
 * A lower bound of the length of `toJson(value)`, stopping as soon as it passes
 * `limit`. Iterative (a deeply nested value does not reach the call stack), and each
 * node visited adds at least one character, so the walk itself is bounded by `limit`.
 * `plain`: every value is one JSON.stringify prints as toJson does (no undefined,
 * function, symbol or bigint).
 */
function jsonLengthAtLeast(value: unknown, limit: number, meter: WorkMeter): { atLeast: number; plain: boolean } {
  let total = 0;
  let plain = true;
  const pending: unknown[] = [value];
  while (pending.length > 0 && total <= limit) {
    const item = pending.pop();
    meter.charge(1);
    if (Array.isArray(item)) {
      // Brackets and commas.
      total += item.length === 0 ? 2 : item.length + 1;
      if (total > limit) break;
      for (const child of item) pending.push(child);
    } else if (isDataMap(item)) {
      const keys = Object.keys(item);
      total += keys.length === 0 ? 2 : keys.length + 1;
      for (const key of keys) {
        // Quotes and colon.
        total += key.length + 3;
        if (total > limit) break;
        pending.push(item[key]);
      }
    } else if (typeof item === 'string') {
      total += item.length + 2;
    } else {
      // A number, boolean, null or date prints as one character at least.
      total += 1;
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol' || typeof item === 'bigint') plain = false;
    }
  }
  return { atLeast: total, plain };
}

/** A count for a message: huge or fractional sizes (`range(0, 1e300)`) read as such. */
function count(n: number): string {
  return Number.isSafeInteger(n) ? formatCount(n) : 'more than 9,007,199,254,740,991';
}
