/** What a masked secret value looks like in a log line or an error message. */
export const SECRET_MASK = '*****';

/**
 * The secret values one task run resolved, to hide them in what the task prints.
 * A multi-line value (a PEM key) is also masked line by line, because processes'
 * output reaches the log one line at a time.
 */
export class SecretMask {
  private readonly values = new Set<string>();
  private ordered: string[] = [];

  add(value: string): void {
    const candidates = [value, ...value.split(/\r?\n/).map((line) => line.trim())];
    for (const candidate of candidates) if (candidate !== '') this.values.add(candidate);
    // Longest first, so a value that contains another is hidden whole.
    this.ordered = [...this.values].sort((a, b) => b.length - a.length);
  }

  apply(text: string): string {
    let masked = text;
    for (const value of this.ordered) if (masked.includes(value)) masked = masked.split(value).join(SECRET_MASK);
    return masked;
  }
}
