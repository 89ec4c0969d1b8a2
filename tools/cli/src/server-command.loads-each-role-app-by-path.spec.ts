import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROLES } from '@lanner/runtime';
import { roleMainFile } from './server-command';

const workspaceRoot = join(__dirname, '..', '..', '..');

describe('lanner server <role>', () => {
  it.each(ROLES)('finds the app of the %s role', (role) => {
    expect(existsSync(roleMainFile(workspaceRoot, role))).toBe(true);
  });

  it('refuses an unknown role with exit code 2, listing the roles', () => {
    const run = spawnSync(process.execPath, [join(workspaceRoot, 'bin', 'lanner.js'), 'server', 'schedulr'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`unknown role "schedulr"; expected one of: ${ROLES.join(', ')}`);
  });

  it('refuses --no-indexer for any role but api, with exit code 2', () => {
    const run = spawnSync(process.execPath, [join(workspaceRoot, 'bin', 'lanner.js'), 'server', 'executor', '--no-indexer'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--no-indexer applies to the api role only, not "executor"');
  });

  it('lists its commands under --help', () => {
    const run = spawnSync(process.execPath, [join(workspaceRoot, 'bin', 'lanner.js'), '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/server \[options\] <role>/);
    expect(run.stdout).toMatch(/\bdb\b/);
    expect(run.stdout).toMatch(/\bconfig\b/);
  });

  it('names every role in `lanner server --help`', () => {
    const run = spawnSync(process.execPath, [join(workspaceRoot, 'bin', 'lanner.js'), 'server', '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    for (const role of ROLES) expect(run.stdout).toMatch(new RegExp(`\\b${role}\\b`));
  });
});
