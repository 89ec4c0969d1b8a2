/**
 * Reads the major version from `java -version` output, which goes to stderr and looks
 * like `openjdk version "17.0.15" 2025-04-15` or, for Java 8, `java version "1.8.0_402"`.
 */
export function javaMajorVersion(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?[^"]*"/.exec(versionOutput);
  if (!match) return undefined;
  const first = Number(match[1]);
  // Before Java 9 the major version was the second number ("1.8" is Java 8).
  if (first === 1 && match[2] !== undefined) return Number(match[2]);
  return first;
}

export const KAFKA_MIN_JAVA = 17;
