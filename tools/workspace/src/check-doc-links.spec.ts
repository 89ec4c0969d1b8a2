// doc-links: ignore-file (the fixtures below name missing documents on purpose)
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { runChecker, tree as scratchTree } from './test-support/script-fixtures';

// `npm test` runs tools/scripts/check-doc-links.js over the repository: a document that
// a README, a doc or a comment names must be in the repository.
const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'check-doc-links.js');
const WORKSPACE = path.join(__dirname, '..', '..', '..');

function tree(files: Record<string, string>): string {
  return scratchTree('lanner-doc-links-', files);
}

function check(root: string): { status: number | null; lines: string[] } {
  return runChecker(SCRIPT, root);
}

describe('document references are checked', () => {
  it('accepts links and names that resolve: relative links, repository paths and bare document names', () => {
    const root = tree({
      'README.md': 'See [the flows](docs/FLOWS.md#states), docs/API.md and [a picture](docs/images/a.png).\n',
      'docs/FLOWS.md': '# Flows\nThe REST contract is in API.md; back to [the README](../README.md).\n',
      'docs/API.md': '# API\n',
      'docs/images/a.png': 'png',
      'libs/x/src/a.ts': '// The rules are in docs/FLOWS.md ("States") and FLOWS.md.\nexport const a = 1;\n',
    });
    expect(check(root)).toEqual({ status: 0, lines: ['every document named in the repository is in it'] });
  });

  it('names each broken reference with its file and line: a missing link, a missing name, a path out of the repository', () => {
    const root = tree({
      'README.md': '# Lanner\nSee [the design](docs/DESIGN.md).\n',
      'libs/x/README.md': 'Rules: ../../../outside/docs/RULES.md\n',
      'libs/x/src/a.ts': 'export const a = 1;\n// as ARCHITECTURE.md says\n',
      'docs/ok.md': 'fine\n',
    });
    const result = check(root);
    expect(result.status).toBe(1);
    expect(result.lines).toEqual(
      expect.arrayContaining([
        'README.md:2: links to a missing file: docs/DESIGN.md',
        expect.stringMatching(
          /^libs\/x\/README\.md:1: (names a document|points) outside the repository: \.\.\/\.\.\/\.\.\/outside/,
        ),
        'libs/x/src/a.ts:2: names a document that is not in the repository: ARCHITECTURE.md',
      ]),
    );
    expect(result.lines[result.lines.length - 1]).toMatch(/^\d+ broken document reference\(s\)$/);
  });

  it('finds nothing broken in this repository', () => {
    expect(execFileSync(process.execPath, [SCRIPT, WORKSPACE], { encoding: 'utf8' })).toContain('every document named');
  });
});
