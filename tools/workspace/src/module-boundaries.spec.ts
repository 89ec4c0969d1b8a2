import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The architecture says pure libraries never reach I/O, roles stay apart and
// workers never touch the repository or the queue. These specs lint small
// probe sources as if they lived in a project, through the real ESLint CLI and
// config, exactly as `npm run lint` does.
const workspaceRoot = join(__dirname, '..', '..', '..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

async function boundaryErrors(projectFile: string, source: string): Promise<string[]> {
  return lintErrors(projectFile, source, ['@nx/enforce-module-boundaries']);
}

/** The messages of the given rules for `source` linted as if it were `projectFile`. */
async function lintErrors(projectFile: string, source: string, rules: readonly string[]): Promise<string[]> {
  const eslint = spawnSync(
    process.execPath,
    [
      join(workspaceRoot, 'node_modules', 'eslint', 'bin', 'eslint.js'),
      '--stdin',
      '--stdin-filename',
      projectFile,
      '--format',
      'json',
    ],
    { cwd: workspaceRoot, input: source, encoding: 'utf8', env: { ...process.env, NX_DAEMON: 'false' } },
  );
  if (!eslint.stdout) throw new Error(`eslint printed nothing: ${eslint.stderr}`);
  const [result] = JSON.parse(eslint.stdout) as { messages: LintMessage[] }[];
  return result.messages.filter((m) => m.ruleId !== null && rules.includes(m.ruleId)).map((m) => m.message);
}

describe('module boundaries enforced by lint', () => {
  it('refuses an import from a pure library (capacity) into an I/O library (repository)', async () => {
    const errors = await boundaryErrors(
      'libs/capacity/src/boundary-probe.ts',
      "import { applyMigrations } from '@lanner/repository';\nexport const probe = applyMigrations;\n",
    );
    expect(errors).toEqual([expect.stringContaining('type:domain')]);
  });

  it('refuses the worker role importing the queue', async () => {
    const errors = await boundaryErrors(
      'libs/roles/worker/src/boundary-probe.ts',
      "import type { QueuePort } from '@lanner/queue';\nexport type Probe = QueuePort;\n",
    );
    expect(errors).toEqual([expect.stringContaining('platform:server')]);
  });

  it('refuses one role importing another role', async () => {
    const errors = await boundaryErrors(
      'libs/roles/api/src/boundary-probe.ts',
      "import * as executor from '@lanner/role-executor';\nexport const probe = executor;\n",
    );
    expect(errors).toEqual([expect.stringContaining('"type:role" can only depend on')]);
  });

  it("refuses an app booting another role's module", async () => {
    const errors = await boundaryErrors(
      'apps/api/src/boundary-probe.ts',
      "import * as executor from '@lanner/role-executor';\nexport const probe = executor;\n",
    );
    expect(errors).toEqual([
      expect.stringContaining(
        '"scope:api-process" can only depend on libs tagged with "scope:api", "scope:indexer", "scope:shared"',
      ),
    ]);
  });

  it('accepts a pure library importing another pure library', async () => {
    const errors = await boundaryErrors(
      'libs/capacity/src/boundary-probe.ts',
      "import * as model from '@lanner/model';\nexport const probe = model;\n",
    );
    expect(errors).toEqual([]);
  });
});

describe('test support (@lanner/testing) is for test code only', () => {
  const importRules = ['@nx/enforce-module-boundaries', 'no-restricted-imports'];
  const probe = "import { freePort } from '@lanner/testing';\nexport const probe = freePort;\n";

  it('refuses it in the code a role ships', async () => {
    const errors = await lintErrors('libs/roles/controller/src/lib/boundary-probe.ts', probe, importRules);
    expect(errors).toEqual([expect.stringContaining('Test support: import it only from specs')]);
  });

  it('refuses it in the runtime and the tools users run', async () => {
    expect(await lintErrors('libs/runtime/src/standalone/boundary-probe.ts', probe, importRules)).toEqual([
      expect.stringContaining('Test support'),
    ]);
    expect(await lintErrors('tools/dev-services/src/boundary-probe.ts', probe, importRules)).toEqual([
      expect.stringContaining('Test support'),
    ]);
  });

  it.each([
    'libs/roles/controller/src/boundary-probe.int-spec.ts',
    'libs/roles/worker/src/testing/boundary-probe.ts',
    'libs/runtime/src/testing/boundary-probe.ts',
    'libs/roles/executor/src/lib/boundary-probe.spec.ts',
    'apps/e2e/src/harness/boundary-probe.ts',
    'tools/bench/fleet/boundary-probe.ts',
  ])('accepts it in %s', async (file) => {
    expect(await lintErrors(file, probe, importRules)).toEqual([]);
  });

  it('keeps it free of Lanner libraries', async () => {
    const errors = await boundaryErrors(
      'libs/testing/src/boundary-probe.ts',
      "import * as model from '@lanner/model';\nexport const probe = model;\n",
    );
    expect(errors).toEqual([expect.stringContaining('"type:testing" cannot depend on any libs')]);
  });
});

describe('domain libraries stay pure, enforced by lint', () => {
  const purityRules = ['no-restricted-syntax', 'no-restricted-imports'];

  it.each([
    ['a clock read', 'export const now = (): number => Date.now();\n', 'reads no clock'],
    ['a current date', 'export const now = (): Date => new Date();\n', 'reads no clock'],
    ['randomness', 'export const pick = (): number => Math.random();\n', 'draws no randomness'],
    ['a timer', 'export const later = (f: () => void): void => {\n  setTimeout(f, 10);\n};\n', 'sets no timer'],
    ['a node: import', "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n", 'no Node module'],
    ['a bare Node module', "import { createHash } from 'crypto';\nexport const hash = createHash;\n", 'no Node module'],
  ])('refuses %s in libs/state-machine', async (_what, source, message) => {
    expect(await lintErrors('libs/state-machine/src/lib/purity-probe.ts', source, purityRules)).toEqual([
      expect.stringContaining(message),
    ]);
  });

  it('accepts a date made from an input, and a clock read in a spec or an adapter', async () => {
    const fromInput = 'export const at = (ms: number): Date => new Date(ms);\n';
    expect(await lintErrors('libs/model/src/purity-probe.ts', fromInput, purityRules)).toEqual([]);
    const clock = 'export const now = (): number => Date.now();\n';
    expect(await lintErrors('libs/state-machine/src/lib/purity-probe.spec.ts', clock, purityRules)).toEqual([]);
    expect(await lintErrors('libs/repository/src/purity-probe.ts', clock, purityRules)).toEqual([]);
  });
});

describe('formatting is part of lint', () => {
  it('refuses code Prettier would change, and accepts it once formatted', async () => {
    const unformatted = 'export const value = {a:1,  b : "two"}\n';
    expect(await lintErrors('libs/model/src/format-probe.ts', unformatted, ['prettier/prettier'])).not.toEqual([]);
    const formatted = "export const value = { a: 1, b: 'two' };\n";
    expect(await lintErrors('libs/model/src/format-probe.ts', formatted, ['prettier/prettier'])).toEqual([]);
  });
});
