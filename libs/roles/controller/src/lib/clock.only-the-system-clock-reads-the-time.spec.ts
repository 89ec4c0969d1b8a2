import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// The controller reads the time only through its Clock port: a `Date.now()` or
// an argument-less `new Date()` anywhere in its sources (specs aside) would be a
// clock no spec can move. Only the system adapter reads the host's clock.

const SOURCE_ROOT = join(__dirname, '..');
const ADAPTER = 'lib/system-clock.ts';

/** Code only: comments and string contents are blanked, so a sentence about Date.now() is not a call. */
function codeOf(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/\/\/[^\n]*/g, '')
    .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, "''");
}

/** The lines (1-based) of a source that read the host's clock directly. */
export function hostClockReads(source: string): number[] {
  const reads = /\bDate\s*\.\s*now\s*\(|\bnew\s+Date\s*\(\s*\)/;
  return codeOf(source)
    .split('\n')
    .flatMap((line, index) => (reads.test(line) ? [index + 1] : []));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.spec.ts') || entry.name.endsWith('.int-spec.ts')) return [];
    return [path];
  });
}

describe('the controller reads the time only through its Clock', () => {
  it('has no Date.now() or argument-less new Date() outside the system clock adapter', () => {
    const offenders = sourceFiles(SOURCE_ROOT).flatMap((path) => {
      const name = relative(SOURCE_ROOT, path);
      if (name === ADAPTER) return [];
      return hostClockReads(readFileSync(path, 'utf8')).map((line) => `${name}:${line}`);
    });
    expect(offenders).toEqual([]);
  });

  it('finds such a read in code, and leaves dates built from a value and mentions in comments alone', () => {
    expect(hostClockReads('const a = Date.now();\nconst b = new Date();\nconst c = new Date (  );')).toEqual([1, 2, 3]);
    expect(
      hostClockReads(
        'const d = new Date(at);\nconst e = Date.parse(x);\n// Date.now() is not read here\nconst f = "new Date()";',
      ),
    ).toEqual([]);
  });

  it('lets the adapter itself read the host clock (the scan would see it otherwise)', () => {
    expect(hostClockReads(readFileSync(join(SOURCE_ROOT, ADAPTER), 'utf8'))).not.toEqual([]);
  });
});
