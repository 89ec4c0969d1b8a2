#!/usr/bin/env node
// Fails (exit 1) when the committed gRPC code in libs/frames/src/generated is not
// exactly what proto/ generates today, naming each stale file. CI runs it so a
// .proto change can never ship without its TypeScript (and vice versa).
//
// It regenerates into a temporary folder with the same buf template as
// `npm run codegen`, then compares byte for byte; the template annotates no
// tool versions or dates, so a clean tree always compares equal.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const workspaceRoot = path.resolve(__dirname, '..', '..');
const generatedDir = 'libs/frames/src/generated';
const buf = path.join(workspaceRoot, 'node_modules', '.bin', 'buf');

function listFiles(root) {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lanner-codegen-'));
  try {
    try {
      execFileSync(buf, ['generate', 'proto', '--template', 'proto/buf.gen.yaml', '-o', scratch], {
        cwd: workspaceRoot,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
    } catch {
      console.error('check-codegen: `buf generate` failed (see above); fix proto/ first.');
      return 1;
    }

    const expectedRoot = path.join(scratch, generatedDir);
    const committedRoot = path.join(workspaceRoot, generatedDir);
    const expected = listFiles(expectedRoot);
    const committed = new Set(listFiles(committedRoot));

    const stale = [];
    for (const file of expected) {
      if (!committed.has(file)) {
        stale.push(`missing   ${generatedDir}/${file}`);
      } else if (!fs.readFileSync(path.join(expectedRoot, file)).equals(fs.readFileSync(path.join(committedRoot, file)))) {
        stale.push(`outdated  ${generatedDir}/${file}`);
      }
      committed.delete(file);
    }
    for (const file of committed) stale.push(`leftover  ${generatedDir}/${file}`);

    if (stale.length > 0) {
      console.error(`check-codegen: the generated gRPC code does not match proto/:\n  ${stale.join('\n  ')}`);
      console.error('Run `npm run codegen` and commit the result.');
      return 1;
    }
    console.log(`check-codegen: ${generatedDir} is up to date with proto/ (${expected.length} files).`);
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = main();
