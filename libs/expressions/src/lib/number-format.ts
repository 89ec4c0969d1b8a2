/**
 * The `numberformat` filter: Java's DecimalFormat patterns (what Pebble uses) in the
 * `en_US` symbols, without a number library. A pattern is `positive[;negative]`, each a
 * prefix, a number part and a suffix: `#` (a digit, absent when zero), `0` (a digit,
 * always shown), `,` (grouping, the size being the digits after the last one), `.`, `E0`
 * (scientific notation, the `0`s the exponent's minimum digits), and in the prefix or
 * suffix literal text, `'quoted text'`, `''` (a quote), `%` (×100) and `‰` (×1000).
 * Rounding is HALF_EVEN on the exact binary value (after `%`/`‰` multiply it), as DecimalFormat does; `-0` keeps its
 * sign (`-0.00`), as DecimalFormat prints it.
 */

export class NumberFormatError extends Error {}

interface SubPattern {
  readonly prefix: string;
  readonly suffix: string;
}

interface NumberPattern {
  readonly positive: SubPattern;
  readonly negative: SubPattern | undefined;
  readonly minInt: number;
  readonly maxInt: number;
  readonly minFrac: number;
  readonly maxFrac: number;
  /** 0: no grouping. */
  readonly grouping: number;
  readonly pointAlwaysShown: boolean;
  /** Scientific notation: the exponent's minimum digits (undefined: none). */
  readonly exponentDigits: number | undefined;
  readonly multiplier: bigint;
}

const NUMBER_CHARS = /[#0,.E]/;

/** Reads the prefix or suffix text from `at` until the number part (or the end, or `;`). */
function affix(pattern: string, at: number, stopAtNumber: boolean): { text: string; end: number; multiplier: bigint } {
  let text = '';
  let multiplier = 1n;
  let i = at;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        text += "'";
        i += 2;
        continue;
      }
      // Quoted text, in which '' is a quote.
      i++;
      for (;;) {
        if (i >= pattern.length) throw new NumberFormatError(`the pattern '${pattern}' has an unclosed quote`);
        if (pattern[i] === "'" && pattern[i + 1] === "'") {
          text += "'";
          i += 2;
        } else if (pattern[i] === "'") {
          i++;
          break;
        } else {
          text += pattern[i++];
        }
      }
      continue;
    }
    if (c === ';' || (stopAtNumber && NUMBER_CHARS.test(c))) break;
    if (!stopAtNumber && NUMBER_CHARS.test(c))
      throw new NumberFormatError(`the pattern '${pattern}' has '${c}' after its suffix began (quote it: '${c}')`);
    if (c === '¤') throw new NumberFormatError(`the pattern '${pattern}' uses '¤' (currency), which is not supported`);
    if (c === '%') multiplier = 100n;
    if (c === '‰') multiplier = 1000n;
    text += c;
    i++;
  }
  return { text, end: i, multiplier };
}

export function parseNumberPattern(pattern: string): NumberPattern {
  const prefix = affix(pattern, 0, true);
  let i = prefix.end;
  let integer = '';
  while (i < pattern.length && /[#0,]/.test(pattern[i])) integer += pattern[i++];
  let fraction = '';
  let point = false;
  if (pattern[i] === '.') {
    point = true;
    i++;
    while (i < pattern.length && /[#0]/.test(pattern[i])) fraction += pattern[i++];
  }
  let exponentDigits: number | undefined;
  if (pattern[i] === 'E') {
    i++;
    let zeros = 0;
    while (pattern[i] === '0') {
      zeros++;
      i++;
    }
    if (zeros === 0) throw new NumberFormatError(`the pattern '${pattern}' needs at least one '0' after 'E'`);
    exponentDigits = zeros;
  }
  const suffix = affix(pattern, i, false);
  i = suffix.end;
  const digits = integer.replace(/,/g, '');
  if (digits === '' && fraction === '') throw new NumberFormatError(`the pattern '${pattern}' has no digit ('#' or '0')`);
  if (/0#/.test(digits)) throw new NumberFormatError(`the pattern '${pattern}' has a '#' after a '0' in its integer part`);
  if (/#0/.test(fraction)) throw new NumberFormatError(`the pattern '${pattern}' has a '0' after a '#' in its fraction`);
  const lastComma = integer.lastIndexOf(',');
  if (lastComma === integer.length - 1 && integer !== '')
    throw new NumberFormatError(`the pattern '${pattern}' ends its integer part with ','`);
  let negative: SubPattern | undefined;
  if (pattern[i] === ';') {
    // The negative subpattern gives its own prefix and suffix; its number part is the positive one's.
    const negPrefix = affix(pattern, i + 1, true);
    let j = negPrefix.end;
    while (j < pattern.length && NUMBER_CHARS.test(pattern[j])) j++;
    const negSuffix = affix(pattern, j, false);
    if (negSuffix.end < pattern.length) throw new NumberFormatError(`the pattern '${pattern}' has more than one ';'`);
    negative = { prefix: negPrefix.text, suffix: negSuffix.text };
  }
  const multiplier = prefix.multiplier !== 1n ? prefix.multiplier : suffix.multiplier;
  return {
    positive: { prefix: prefix.text, suffix: suffix.text },
    negative,
    minInt: (digits.match(/0/g) ?? []).length,
    maxInt: exponentDigits === undefined ? Number.MAX_SAFE_INTEGER : digits.length,
    minFrac: (fraction.match(/0/g) ?? []).length,
    maxFrac: fraction.length,
    grouping: lastComma < 0 || exponentDigits !== undefined ? 0 : integer.length - lastComma - 1,
    pointAlwaysShown: point && fraction === '',
    exponentDigits,
    multiplier,
  };
}

/** A decimal `digits / 10^scale`, exact. */
interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

/** The exact decimal value of a finite double's magnitude. */
function exactDecimal(value: number): Decimal {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const power = (exponent === 0 ? -1074 : exponent - 1075) as number;
  if (power >= 0) return { digits: mantissa << BigInt(power), scale: 0 };
  return { digits: mantissa * 5n ** BigInt(-power), scale: -power };
}

/** Rounds to `places` fraction digits, HALF_EVEN. */
function round(value: Decimal, places: number): Decimal {
  if (value.scale <= places) return { digits: value.digits * 10n ** BigInt(places - value.scale), scale: places };
  const divisor = 10n ** BigInt(value.scale - places);
  let kept = value.digits / divisor;
  const rest = value.digits % divisor;
  const twice = rest * 2n;
  if (twice > divisor || (twice === divisor && kept % 2n === 1n)) kept += 1n;
  return { digits: kept, scale: places };
}

/** The integer and fraction digit strings of a rounded decimal. */
function split(value: Decimal): { integer: string; fraction: string } {
  const text = value.digits.toString().padStart(value.scale + 1, '0');
  return { integer: text.slice(0, text.length - value.scale), fraction: text.slice(text.length - value.scale) };
}

function group(integer: string, size: number): string {
  if (size <= 0 || integer.length <= size) return integer;
  const parts: string[] = [];
  for (let end = integer.length; end > 0; end -= size) parts.unshift(integer.slice(Math.max(0, end - size), end));
  return parts.join(',');
}

function digitsPart(integerDigits: string, fractionDigits: string, p: NumberPattern): string {
  let integer = integerDigits.replace(/^0+/, '');
  if (integer.length < p.minInt) integer = integer.padStart(p.minInt, '0');
  let fraction = fractionDigits;
  while (fraction.length > p.minFrac && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  // DecimalFormat shows a zero when neither part has a digit ("#.##" formats 0 as "0").
  if (integer === '' && fraction === '') integer = '0';
  const point = fraction !== '' || p.pointAlwaysShown ? '.' : '';
  return `${group(integer, p.grouping)}${point}${fraction}`;
}

function scientific(value: Decimal, p: NumberPattern): string {
  if (value.digits === 0n) {
    return `${digitsPart('0', '0'.repeat(p.maxFrac), p)}E${'0'.repeat(p.exponentDigits ?? 1)}`;
  }
  // Engineering notation when '#' widens the integer part (`##0.##E0`): the exponent a multiple of its width.
  const engineering = p.maxInt > p.minInt && p.maxInt > 1;
  const intDigits = engineering ? 1 : Math.max(1, p.minInt);
  const magnitude = value.digits.toString().length - value.scale - 1;
  let exponent = magnitude - (intDigits - 1);
  if (engineering) exponent = Math.floor(magnitude / p.maxInt) * p.maxInt;
  // In engineering notation the mantissa keeps minInt + maxFrac significant digits.
  const places = engineering ? Math.max(0, Math.max(1, p.minInt) + p.maxFrac - (magnitude - exponent + 1)) : p.maxFrac;
  let mantissa = round({ digits: value.digits, scale: value.scale + exponent }, places);
  const whole = split(mantissa).integer.replace(/^0+/, '');
  const allowed = engineering ? p.maxInt : intDigits;
  if (whole.length > allowed) {
    // Rounding carried a digit over (9.99 → 10.0): one power of ten more.
    exponent += engineering ? p.maxInt : 1;
    mantissa = round({ digits: value.digits, scale: value.scale + exponent }, places);
  }
  const { integer, fraction } = split(mantissa);
  const sign = exponent < 0 ? '-' : '';
  return `${digitsPart(integer, fraction, p)}E${sign}${String(Math.abs(exponent)).padStart(p.exponentDigits ?? 1, '0')}`;
}

/** Formats a number with a DecimalFormat pattern. */
export function formatNumber(value: number, pattern: string): string {
  const p = parseNumberPattern(pattern);
  const negative = value < 0 || Object.is(value, -0);
  const sub = negative ? (p.negative ?? { prefix: `-${p.positive.prefix}`, suffix: p.positive.suffix }) : p.positive;
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return `${sub.prefix}∞${sub.suffix}`;
  // DecimalFormat multiplies in double arithmetic (0.0125 × 1000 is 12.5, a tie), then rounds the exact result.
  const scaled = exactDecimal(value * Number(p.multiplier));
  let body: string;
  if (p.exponentDigits !== undefined) {
    body = scientific(scaled, p);
  } else {
    const { integer, fraction } = split(round(scaled, p.maxFrac));
    body = digitsPart(integer, fraction, p);
  }
  return `${sub.prefix}${body}${sub.suffix}`;
}
