import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileTokenReader, readSetupSection } from './setup-file';

describe('setup file: LANNER_SETUP_FILE is read for its setup section', () => {
  const folder = mkdtempSync(join(tmpdir(), 'lanner-setup-file-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };

  it('returns the setup section, with ${NAME} replaced from the environment and unset names left for validation to report', () => {
    const path = write(
      'env.yml',
      'logging: { level: info }\nsetup:\n  workerGroups:\n    - id: etl\n      registrationTokens:\n        - { name: ci, token: "${ETL_TOKEN}" }\n        - { name: cd, token: "${UNSET_TOKEN}" }\n',
    );
    expect(readSetupSection(path, { ETL_TOKEN: 'from-the-environment' })).toEqual({
      ok: true,
      section: {
        workerGroups: [
          {
            id: 'etl',
            registrationTokens: [
              { name: 'ci', token: 'from-the-environment' },
              { name: 'cd', token: '${UNSET_TOKEN}' },
            ],
          },
        ],
      },
    });
  });

  it('names the variable when the file cannot be read, and the path when there is no setup section', () => {
    const missing = join(folder, 'missing.yml');
    expect(readSetupSection(missing, {})).toEqual({
      ok: false,
      problems: [{ path: 'LANNER_SETUP_FILE', message: `names a file that cannot be read (ENOENT): ${missing}` }],
    });
    const empty = write('other.yml', 'something: else\n');
    expect(readSetupSection(empty, {})).toEqual({
      ok: false,
      problems: [{ path: 'setup', message: `is missing: ${empty} must have a top-level 'setup' section` }],
    });
  });

  it('reports invalid YAML by position only, never quoting the file (it may hold a token)', () => {
    const path = write('broken.yml', 'setup:\n  token: "secret-value\n');
    const read = readSetupSection(path, {});
    expect(read.ok).toBe(false);
    expect(JSON.stringify(read)).not.toContain('secret-value');
    expect(read).toEqual({
      ok: false,
      problems: [
        expect.objectContaining({
          path: 'LANNER_SETUP_FILE',
          message: expect.stringMatching(/is not valid YAML \(\w+ at line \d+, column \d+\)$/),
        }),
      ],
    });
  });

  it('reads token files relative to the setup file, and reports an unreadable one by its error code', () => {
    write('rack.token', 'the-token\n');
    const reader = fileTokenReader(join(folder, 'lanner.yml'));
    expect(reader.read('rack.token')).toEqual({ readable: true, content: 'the-token\n' });
    expect(reader.read(join(folder, 'rack.token'))).toEqual({ readable: true, content: 'the-token\n' });
    expect(reader.read('absent.token')).toEqual({ readable: false, reason: 'ENOENT' });
  });
});
