import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// `npm start` and `npm test` first run tools/scripts/ensure-installed.js. It is run
// here in a copy of the workspace layout whose only dependency is a local folder, so
// the real `npm ci` it starts needs no registry.
const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'ensure-installed.js');

function fixtureWorkspace(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lanner-ensure-installed-'));
  fs.mkdirSync(path.join(root, 'tools', 'scripts'), { recursive: true });
  fs.copyFileSync(SCRIPT, path.join(root, 'tools', 'scripts', 'ensure-installed.js'));
  fs.mkdirSync(path.join(root, 'greeting'));
  fs.writeFileSync(path.join(root, 'greeting', 'package.json'), JSON.stringify({ name: 'greeting', version: '1.0.0' }));
  fs.writeFileSync(path.join(root, 'greeting', 'index.js'), "module.exports = 'hello';\n");
  const manifest = { name: 'fixture', version: '1.0.0', private: true, dependencies: { greeting: 'file:greeting' } };
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(manifest, null, 2));
  execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--offline'], { cwd: root, stdio: 'pipe' });
  return root;
}

function ensureInstalled(root: string): string {
  // Run as npm runs a script: npm_execpath is unset here, so the script uses the npm on PATH.
  const env = { ...process.env };
  delete env.npm_execpath;
  return execFileSync(process.execPath, [path.join(root, 'tools', 'scripts', 'ensure-installed.js')], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const installed = (root: string) => fs.existsSync(path.join(root, 'node_modules', 'greeting', 'index.js'));

describe('ensure-installed (the first step of npm start and npm test)', () => {
  let root: string;
  beforeEach(() => {
    root = fixtureWorkspace();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('installs the dependencies of a fresh clone, where node_modules is missing', () => {
    expect(installed(root)).toBe(false);

    const output = ensureInstalled(root);

    expect(output).toContain('node_modules is missing: running npm ci');
    expect(installed(root)).toBe(true);
  });

  it('installs nothing when node_modules is newer than the lockfile', () => {
    ensureInstalled(root);
    fs.rmSync(path.join(root, 'node_modules', 'greeting'), { recursive: true, force: true });

    const output = ensureInstalled(root);

    expect(output).not.toContain('npm ci');
    expect(installed(root)).toBe(false);
  });

  it('installs again after a pull changed package-lock.json', () => {
    ensureInstalled(root);
    fs.rmSync(path.join(root, 'node_modules', 'greeting'), { recursive: true, force: true });
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'package-lock.json'), later, later);

    const output = ensureInstalled(root);

    expect(output).toContain('package-lock.json is newer than node_modules: running npm ci');
    expect(installed(root)).toBe(true);
    expect(ensureInstalled(root)).not.toContain('npm ci');
  });
});
