// ISO-8601 durations as Kestra reads them (java.time.Duration): days, hours,
// minutes and (fractional) seconds. Years, months and weeks have no fixed length,
// so Kestra refuses them and so do we.

const ISO_DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d{1,9}))?S)?)?$/i;

/**
 * Milliseconds of an ISO-8601 duration such as `PT1S`, `PT10M`, `P1D` or
 * `PT0.5S`; `undefined` when the text is not one (or is too long to count in ms).
 */
export function parseIsoDuration(text: string): number | undefined {
  const match = ISO_DURATION.exec(text.trim());
  if (!match) return undefined;
  const [, days, hours, minutes, seconds, fraction] = match;
  if (days === undefined && hours === undefined && minutes === undefined && seconds === undefined) return undefined;
  // `P1DT` (a T with nothing after it) is not a duration.
  if (/T$/i.test(text.trim())) return undefined;
  const wholeMs =
    Number(days ?? 0) * 86_400_000 + Number(hours ?? 0) * 3_600_000 + Number(minutes ?? 0) * 60_000 + Number(seconds ?? 0) * 1000;
  const fractionMs = fraction === undefined ? 0 : Math.round(Number(`0.${fraction}`) * 1000);
  const total = wholeMs + fractionMs;
  return Number.isSafeInteger(total) ? total : undefined;
}
