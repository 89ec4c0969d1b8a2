import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { runChecker, tree as scratchTree } from './test-support/script-fixtures';

// `npm test` runs tools/scripts/check-compatibility-doc.js: every row of the Kestra
// compatibility page has a known status, a `yes` row names a test, and every test a row
// names exists.
const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'check-compatibility-doc.js');
const WORKSPACE = path.join(__dirname, '..', '..', '..');
const PAGE = 'docs/KESTRA-COMPATIBILITY.md';

function tree(files: Record<string, string>): string {
  return scratchTree('lanner-compat-doc-', files);
}

function check(root: string): { status: number | null; lines: string[] } {
  return runChecker(SCRIPT, root);
}

const TESTS = {
  'tests/flows/kestra/context/flow-identity.yaml': 'id: flow-identity\n',
  'tests/flows/kestra/flowables/subflow-with-inputs.yaml': 'id: subflow-with-inputs\n',
  'tests/flows/kestra/tasks/log-message.yaml': 'id: log-message\n',
  'libs/state-machine/src/spec/context.kestra-run-variables.spec.ts': '',
  'libs/state-machine/src/spec/retries.constant.spec.ts': '',
  'apps/e2e/src/webhook.e2e-spec.ts': '',
  'libs/roles/api/src/api.int-spec.ts': '',
  'libs/plugins/src/lib/runners/http.spec.ts': '',
};

describe('the compatibility page backs each claim with a test', () => {
  it('accepts rows whose tests exist: corpus flows, patterns, spec names, short names and paths', () => {
    const root = tree({
      ...TESTS,
      [PAGE]: [
        '# Kestra compatibility',
        '`context.spec` is `libs/state-machine/src/spec/context.kestra-run-variables.spec.ts`.',
        '',
        '### Context variables',
        '',
        '| name | status | notes | test |',
        '| --- | --- | --- | --- |',
        '| `flow.id` | yes | a \\| b | `context/flow-identity.yaml`, `context.spec` |',
        '| `trigger` | partial | | `webhook.e2e-spec.ts`, `api.int-spec.ts` |',
        '| `escape` | no | unknown filter | |',
        '',
        '### Flowables',
        '',
        '| Flowable | Status | Notes | Shown by |',
        '|---|---|---|---|',
        '| `core.flow.Subflow` | yes | | `flowables/subflow-*`, `retries.*.spec.ts` |',
        '| `core.log.Log` | yes | | `tasks/log-message` |',
        '| `core.http.Request` | partial | | `libs/plugins/src/lib/runners` specs |',
        '',
      ].join('\n'),
    });
    expect(check(root)).toEqual({ status: 0, lines: ['every compatibility row names tests that exist'] });
  });

  it('names each row that claims without a test, names a missing test or has an unknown status', () => {
    const root = tree({
      ...TESTS,
      [PAGE]: [
        '# Kestra compatibility',
        '`old.spec` is `libs/gone/src/old.spec.ts`.',
        '',
        '### Filters',
        '',
        '| name | status | notes | test |',
        '| --- | --- | --- | --- |',
        '| `upper` | yes | | |',
        '| `lower` | yes | | `pebble/filter-lower.yaml` |',
        '| `trim` | partial | | `trim.removes-spaces.spec.ts` |',
        '| `title` | maybe | | `context/flow-identity.yaml` |',
        '| `slugify` | yes | | the filters above |',
        '| `md5` | yes | | `hash the text` |',
        '| `chunk` | yes | | `flowables/chunk-*` |',
        '',
      ].join('\n'),
    });
    const result = check(root);
    expect(result.status).toBe(1);
    expect(result.lines).toEqual([
      `${PAGE}:2: \`old.spec\` stands for a file that does not exist: libs/gone/src/old.spec.ts`,
      `${PAGE}:8: row \`upper\` in "Filters": says yes but names no test that shows it`,
      `${PAGE}:9: row \`lower\` in "Filters": names a test that does not exist: pebble/filter-lower.yaml`,
      `${PAGE}:10: row \`trim\` in "Filters": names a test that does not exist: trim.removes-spaces.spec.ts`,
      `${PAGE}:11: row \`title\` in "Filters": status "maybe" is not yes, partial or no`,
      `${PAGE}:12: row \`slugify\` in "Filters": says yes but names no test that shows it`,
      `${PAGE}:13: row \`md5\` in "Filters": names \`hash the text\` as a test, which is neither a corpus flow, a spec file nor a path`,
      `${PAGE}:14: row \`chunk\` in "Filters": names a test that does not exist: flowables/chunk-*`,
      '8 unbacked compatibility claim(s)',
    ]);
  });

  it("finds every claim of this repository's page backed", () => {
    expect(execFileSync(process.execPath, [SCRIPT, WORKSPACE], { encoding: 'utf8' })).toContain(
      'every compatibility row names tests that exist',
    );
  });
});
