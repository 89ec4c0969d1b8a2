import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

// The ids every instance has (the `main` tenant, the `default` and `system`
// worker queues, the `default` worker group) have one home: the constants of
// libs/model/src/reserved-ids.ts. This spec reads every string literal of the
// code that may import them and fails on one spelled out instead.

const WORKSPACE = path.join(__dirname, '..', '..', '..');
const HOME = 'libs/model/src/reserved-ids.ts';

const CONSTANT_FOR: Record<string, string> = {
  main: 'DEFAULT_TENANT_ID',
  default: 'DEFAULT_WORKER_QUEUE_ID or DEFAULT_WORKER_GROUP_ID',
  system: 'SYSTEM_WORKER_QUEUE_ID',
};

/** The same words meaning something else: a file and the literal it may spell, with why. */
const OTHER_MEANINGS: readonly { file: string; literal: string; why: string }[] = [
  { file: 'libs/expressions/src/lib/builtins.ts', literal: 'default', why: 'the `default` filter of expressions' },
  { file: 'libs/expressions/src/lib/evaluator.ts', literal: 'default', why: 'the `default` filter of expressions' },
  { file: 'libs/state-machine/src/lib/context.ts', literal: 'system', why: 'the system labels of an execution' },
  ...['next.ts', 'replay.ts', 'stored-state.ts', 'progress.ts', 'types.ts', 'flowables/wait-for.ts'].map((file) => ({
    file: `libs/state-machine/src/lib/${file}`,
    literal: 'main',
    why: "a container's main stage (beside errors and finally)",
  })),
  { file: 'tools/cli/src/client/connection.ts', literal: 'default', why: "the CLI's default profile" },
];

// The UI and the end-to-end suites are users of the API: they may not import libs (module boundaries).
const ROOTS = [
  'libs',
  'tools',
  ...['api', 'controller', 'executor', 'indexer', 'scheduler', 'standalone', 'worker'].map((a) => `apps/${a}`),
];
const NOT_CODE =
  /(\.spec\.ts|\.int-spec\.ts|\.e2e-spec\.ts|\.d\.ts)$|\/(testing|generated|node_modules|dist)\/|spec-(support|fixture)/;

function sourceFiles(dir: string): string[] {
  const absolute = path.join(WORKSPACE, dir);
  if (!fs.existsSync(absolute)) return [];
  return fs
    .readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(WORKSPACE, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => !NOT_CODE.test(`/${file}`));
}

function spelledOut(
  file: string,
  text = fs.readFileSync(path.join(WORKSPACE, file), 'utf8'),
): { literal: string; line: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { literal: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && Object.hasOwn(CONSTANT_FOR, node.text)) {
      // An import path or a property named `default` (`export default`, `.default`) is no id.
      if (!ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent))
        found.push({ literal: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the reserved ids', () => {
  it('are spelled only in their home; everywhere else the code imports the constant', () => {
    const files = ROOTS.flatMap(sourceFiles).filter((file) => file !== HOME);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      spelledOut(file)
        .filter(({ literal }) => !OTHER_MEANINGS.some((other) => other.file === file && other.literal === literal))
        .map(({ literal, line }) => `${file}:${line}: '${literal}': import ${CONSTANT_FOR[literal]} from @lanner/model`),
    );
    expect(offenders).toEqual([]);
  });

  it('are found as literals, not in comments, import paths or longer words', () => {
    const probe = [
      "import { x } from 'main';",
      '// the `default` queue',
      "const tenant = 'main';",
      'const queue = `system`;',
      "const other = 'defaults';",
      "type Q = 'default' | 'gpu';",
    ].join('\n');
    expect(spelledOut('probe.ts', probe)).toEqual([
      { literal: 'main', line: 3 },
      { literal: 'system', line: 4 },
      { literal: 'default', line: 6 },
    ]);
  });

  it('have their home where this spec looks', () => {
    const home = fs.readFileSync(path.join(WORKSPACE, HOME), 'utf8');
    for (const constant of ['DEFAULT_TENANT_ID', 'DEFAULT_WORKER_QUEUE_ID', 'SYSTEM_WORKER_QUEUE_ID', 'DEFAULT_WORKER_GROUP_ID'])
      expect(home).toContain(`export const ${constant} =`);
    for (const { file } of OTHER_MEANINGS) expect(fs.existsSync(path.join(WORKSPACE, file))).toBe(true);
  });
});
