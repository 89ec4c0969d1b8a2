// doc-links: ignore-file (the fixtures below name missing documents on purpose)
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// `npm test` runs tools/scripts/check-doc-links.js over the repository: a document that
// a README, a doc or a comment names must be in the repository.
const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'check-doc-links.js');
const WORKSPACE = path.join(__dirname, '..', '..', '..');

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lanner-doc-links-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

function check(root: string): { status: number | null; lines: string[] } {
  const result = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: result.status, lines: result.stdout.trim().split('\n') };
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
