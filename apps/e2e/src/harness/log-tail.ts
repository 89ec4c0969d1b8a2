import { closeSync, openSync, readSync, statSync } from 'node:fs';

const MAX_BYTES_READ = 512 * 1024;

/** The last `maxLines` lines written to `file` after `fromOffset` (a role's log, for failure messages). */
export function tailSince(file: string, fromOffset: number, maxLines: number): string[] {
  let descriptor: number | undefined;
  try {
    const size = statSync(file).size;
    const start = Math.max(fromOffset, size - MAX_BYTES_READ);
    if (size <= start) return [];
    const buffer = Buffer.alloc(size - start);
    descriptor = openSync(file, 'r');
    readSync(descriptor, buffer, 0, buffer.length, start);
    return buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-maxLines);
  } catch {
    return [];
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}
