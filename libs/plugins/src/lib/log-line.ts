/** FLOWS.md "Limits": a log line is at most 64 KiB. */
export const LOG_LINE_MAX_BYTES = 64 * 1024;

const TRUNCATED = ' [truncated]';

/** Cuts a line to `maxBytes` of UTF-8, marking the cut, without splitting a character. */
export function capLogLine(line: string, maxBytes: number = LOG_LINE_MAX_BYTES): string {
  if (line.length <= maxBytes / 4) return line; // cannot exceed: at most 4 bytes per UTF-16 unit
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= maxBytes) return line;
  let kept = bytes.subarray(0, maxBytes - Buffer.byteLength(TRUNCATED)).toString('utf8');
  // A cut inside a multi-byte character decodes to U+FFFD: drop it rather than show noise.
  if (kept.endsWith('\uFFFD')) kept = kept.slice(0, -1);
  return kept + TRUNCATED;
}
