/**
 * Splits a byte stream into text lines. A line longer than `maxLineBytes` without a
 * newline is emitted in pieces, so a process that never prints a newline cannot make
 * the worker buffer without bound.
 */
export class LineSplitter {
  private pending = '';

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: string): void {
    this.pending += chunk;
    let newline = this.pending.indexOf('\n');
    while (newline !== -1) {
      this.onLine(this.pending.slice(0, newline).replace(/\r$/, ''));
      this.pending = this.pending.slice(newline + 1);
      newline = this.pending.indexOf('\n');
    }
    // Characters, not bytes: a bound is all that matters here; the log sink caps bytes exactly.
    while (this.pending.length > this.maxLineBytes) {
      this.onLine(this.pending.slice(0, this.maxLineBytes));
      this.pending = this.pending.slice(this.maxLineBytes);
    }
  }

  end(): void {
    if (this.pending !== '') this.onLine(this.pending.replace(/\r$/, ''));
    this.pending = '';
  }
}
