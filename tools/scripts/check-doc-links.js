#!/usr/bin/env node
// doc-links: ignore-file (its comments name example documents)
// Docs that point at nothing mislead: every document a README, a doc or a comment names
// must be in the repository. Checked in `npm test`:
// - a Markdown link `[text](target)` to a local path must resolve (relative to the file);
// - a document named in prose or a comment (`docs/FLOWS.md`, or just `FLOWS.md`) must exist:
//   a path resolves against the file's folder or the repository root, a bare name must be
//   the name of some document in the repository;
// - nothing may point outside the repository (`../..` out of the root).
// A file holding the marker `doc-links: ignore-file` (this checker, its spec) is skipped.
// Usage: node tools/scripts/check-doc-links.js [root]. Prints one line per problem
// ("file:line: what") and exits 1 when there is any.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.nx', '.git', '.lanner', '.dev-services', 'tmp', 'coverage', 'generated']);
const CHECKED_EXTENSIONS = new Set([
  '.md',
  '.ts',
  '.tsx',
  '.js',
  '.mjs',
  '.cjs',
  '.go',
  '.sh',
  '.yaml',
  '.yml',
  '.prisma',
  '.proto',
  '.tf',
]);
const SKIPPED_FILES = new Set(['package-lock.json', 'CHANGELOG.md']);

function listFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(path.join(dir, entry.name));
      } else if (entry.isFile() && !SKIPPED_FILES.has(entry.name)) {
        files.push(path.join(dir, entry.name));
      }
    }
  };
  walk(root);
  return files;
}

const MARKDOWN_LINK = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
// A document named in text: an optional relative path, then NAME.md (not part of a URL).
const NAMED_DOCUMENT = /(?<![\w/.:-])((?:\.{1,2}\/|[\w.-]+\/)*[\w.-]+\.md)\b/g;
// A relative path that climbs (`../x`) to a document or a folder of documents must stay inside
// the repository (a path in an example of hostile input, `../../etc/passwd`, is not a reference).
const CLIMBING_PATH = /(?<![\w/.-])((?:\.\.\/)+[\w./-]*)/g;
const REFERENCE_LIKE = /\.(md|txt)$|(^|\/)(shared|design|seeds|docs)(\/|$)/;
const IGNORE_MARKER = 'doc-links: ignore-file';

/** The problems of the tree under `root`: `{ file, line, message }`, file relative to root. */
function findBrokenDocLinks(root) {
  const all = listFiles(root);
  const documentNames = new Set(all.filter((file) => file.endsWith('.md')).map((file) => path.basename(file)));
  const problems = [];
  const insideRoot = (target) => {
    const relative = path.relative(root, target);
    return !relative.startsWith('..') && !path.isAbsolute(relative);
  };
  for (const file of all) {
    if (!CHECKED_EXTENSIONS.has(path.extname(file))) continue;
    const relativeFile = path.relative(root, file);
    const content = fs.readFileSync(file, 'utf8');
    if (content.includes(IGNORE_MARKER)) continue;
    const lines = content.split('\n');
    lines.forEach((text, index) => {
      const report = (message) => problems.push({ file: relativeFile, line: index + 1, message });
      const linked = new Set();
      if (file.endsWith('.md')) {
        for (const [, rawTarget] of text.matchAll(MARKDOWN_LINK)) {
          if (/^[a-z][a-z0-9+.-]*:/i.test(rawTarget) || rawTarget.startsWith('#')) continue;
          const target = decodeURI(rawTarget.split('#')[0]);
          if (target === '') continue;
          linked.add(target);
          const resolved = path.resolve(path.dirname(file), target);
          if (!insideRoot(resolved)) report(`links outside the repository: ${rawTarget}`);
          else if (!fs.existsSync(resolved)) report(`links to a missing file: ${rawTarget}`);
        }
      }
      for (const [, climbing] of text.matchAll(CLIMBING_PATH)) {
        if (!REFERENCE_LIKE.test(climbing)) continue;
        if (!insideRoot(path.resolve(path.dirname(file), climbing))) report(`points outside the repository: ${climbing}`);
      }
      for (const [, named] of text.matchAll(NAMED_DOCUMENT)) {
        if (linked.has(named)) continue;
        if (!named.includes('/')) {
          if (!documentNames.has(named)) report(`names a document that is not in the repository: ${named}`);
          continue;
        }
        const candidates = [path.resolve(path.dirname(file), named), path.resolve(root, named)];
        if (
          candidates.some((candidate) => !insideRoot(candidate)) &&
          !candidates.some((c) => insideRoot(c) && fs.existsSync(c))
        ) {
          report(`names a document outside the repository: ${named}`);
        } else if (!candidates.some((candidate) => fs.existsSync(candidate))) {
          report(`names a missing document: ${named}`);
        }
      }
    });
  }
  return problems;
}

module.exports = { findBrokenDocLinks };

if (require.main === module) {
  const root = path.resolve(process.argv[2] || path.join(__dirname, '..', '..'));
  const problems = findBrokenDocLinks(root);
  for (const problem of problems) process.stdout.write(`${problem.file}:${problem.line}: ${problem.message}\n`);
  if (problems.length > 0) {
    process.stdout.write(`${problems.length} broken document reference(s)\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write('every document named in the repository is in it\n');
  }
}
