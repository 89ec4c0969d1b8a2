#!/usr/bin/env node
// docs/KESTRA-COMPATIBILITY.md says, row by row, how far Lanner does what Kestra does and which
// test shows it. A claim no test backs is a guess, so `npm test` checks every table row:
// - the status is `yes`, `partial` or `no`;
// - a `yes` row names at least one test;
// - every test a row names exists:
//   - a corpus flow, relative to tests/flows/kestra: `context/x.yaml`, `tasks/log-message`
//     (the `.yaml` left out), or a pattern such as `flowables/subflow-*` (files or folders);
//   - a spec file by its name, anywhere under libs/, apps/ or tools/: `foo.spec.ts`,
//     `foo.int-spec.ts`, `foo.e2e-spec.ts`, or a pattern such as `retries.*.spec.ts`;
//   - a short name the page defines in its prose (`` `context.spec` is `libs/…/x.spec.ts` ``);
//   - a path in the repository (`libs/plugins/src/lib/runners`).
//   Anything else written in backquotes in the test column is reported: it is not a test.
// Usage: node tools/scripts/check-compatibility-doc.js [root]. Prints one line per problem
// ("docs/KESTRA-COMPATIBILITY.md:line: row `name`: what") and exits 1 when there is any.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const DOCUMENT = path.join('docs', 'KESTRA-COMPATIBILITY.md');
const CORPUS = path.join('tests', 'flows', 'kestra');
const SPEC_ROOTS = ['libs', 'apps', 'tools'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.nx', '.git', 'tmp', 'coverage', 'generated']);
const STATUSES = new Set(['yes', 'partial', 'no']);
const SPEC_NAME = /^[\w.*-]+\.(spec|int-spec|e2e-spec)\.ts$/;
// A short name for a spec, defined in the page's prose: `context.spec` is `libs/x/src/y.spec.ts`.
const ALIAS_DEFINITION = /`([\w.-]+\.spec)`\s+is\s+`([^`]+)`/g;

function specFileNames(root) {
  const names = new Set();
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(path.join(dir, entry.name));
      } else if (entry.isFile() && SPEC_NAME.test(entry.name)) {
        names.add(entry.name);
      }
    }
  };
  for (const top of SPEC_ROOTS) walk(path.join(root, top));
  return names;
}

/** `*` matches any characters but `/`; everything else literally. */
function patternToRegExp(pattern) {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${escaped}$`);
}

/** The cells of a Markdown table line (`\|` inside a cell is not a separator). */
function cellsOf(line) {
  const trimmed = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

const isTableLine = (line) => line.trim().startsWith('|');
const isSeparatorLine = (line) => isTableLine(line) && /^\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$/.test(line.trim());

/** The problems of the page under `root`: `{ file, line, message }`, file relative to root. */
function findCompatibilityDocProblems(root) {
  const file = path.join(root, DOCUMENT);
  const problems = [];
  if (!fs.existsSync(file)) {
    return [{ file: DOCUMENT, line: 0, message: 'the compatibility page is missing' }];
  }
  const content = fs.readFileSync(file, 'utf8');
  const lines = content.split('\n');
  const report = (index, message) => problems.push({ file: DOCUMENT, line: index + 1, message });
  const exists = (relative) => fs.existsSync(path.join(root, relative));

  const aliases = new Map();
  for (const match of content.matchAll(ALIAS_DEFINITION)) {
    const [, alias, target] = match;
    aliases.set(alias, target);
    const index = content.slice(0, match.index).split('\n').length - 1;
    if (!exists(target)) report(index, `\`${alias}\` stands for a file that does not exist: ${target}`);
  }

  const specs = specFileNames(root);
  const corpusAreas = new Set();
  try {
    for (const entry of fs.readdirSync(path.join(root, CORPUS), { withFileTypes: true })) {
      if (entry.isDirectory()) corpusAreas.add(entry.name);
    }
  } catch {
    // No corpus: every corpus name is reported missing below.
  }

  /** Whether the corpus holds `name` (`area/x.yaml`, `area/x` for `area/x.yaml` or a folder, or a pattern of either). */
  const corpusHas = (name) => {
    const slash = name.indexOf('/');
    const area = name.slice(0, slash);
    const rest = name.slice(slash + 1);
    if (!corpusAreas.has(area) || rest.includes('/')) return false;
    const pattern = patternToRegExp(rest);
    const entries = fs.readdirSync(path.join(root, CORPUS, area));
    return entries.some((entry) => pattern.test(entry) || pattern.test(entry.replace(/\.yaml$/, '')));
  };
  const specExists = (name) => {
    if (!name.includes('*')) return specs.has(name);
    const pattern = patternToRegExp(name);
    for (const spec of specs) if (pattern.test(spec)) return true;
    return false;
  };

  /** What a backquoted name of the test column is: true (it exists), false (missing), or undefined (not a test name). */
  const resolve = (name) => {
    if (aliases.has(name)) return true;
    if (SPEC_NAME.test(name)) return specExists(name);
    if (!name.includes('/') || /\s/.test(name)) return undefined;
    if (SPEC_ROOTS.includes(name.split('/')[0])) return exists(name);
    return corpusHas(name);
  };

  let columns;
  let section = '';
  lines.forEach((text, index) => {
    if (/^#{1,6}\s/.test(text)) section = text.replace(/^#+\s*/, '').trim();
    if (!isTableLine(text)) {
      columns = undefined;
      return;
    }
    if (isSeparatorLine(text)) return;
    const cells = cellsOf(text);
    if (columns === undefined) {
      // The header row: find the status and test columns by name.
      const names = cells.map((cell) => cell.toLowerCase());
      const status = names.indexOf('status');
      const test = names.findIndex((name) => name === 'test' || name === 'tests' || name === 'shown by');
      columns = { status, test };
      if (status < 0 || test < 0) {
        report(index, `a table in "${section}" has no status or test column (its header: ${cells.join(' | ')})`);
      }
      return;
    }
    if (columns.status < 0 || columns.test < 0) return;
    const row = `row ${cells[0] || '(empty)'} in "${section}"`;
    const status = (cells[columns.status] || '').toLowerCase();
    if (!STATUSES.has(status)) {
      report(index, `${row}: status "${cells[columns.status] || ''}" is not yes, partial or no`);
      return;
    }
    const testCell = cells[columns.test] || '';
    let named = 0;
    for (const [, name] of testCell.matchAll(/`([^`]+)`/g)) {
      named += 1;
      const found = resolve(name);
      if (found === undefined) {
        report(index, `${row}: names \`${name}\` as a test, which is neither a corpus flow, a spec file nor a path`);
      } else if (!found) {
        report(index, `${row}: names a test that does not exist: ${name}`);
      }
    }
    if (status === 'yes' && named === 0) report(index, `${row}: says yes but names no test that shows it`);
  });
  return problems;
}

module.exports = { findCompatibilityDocProblems };

if (require.main === module) {
  const root = path.resolve(process.argv[2] || path.join(__dirname, '..', '..'));
  const problems = findCompatibilityDocProblems(root);
  for (const problem of problems) process.stdout.write(`${problem.file}:${problem.line}: ${problem.message}\n`);
  if (problems.length > 0) {
    process.stdout.write(`${problems.length} unbacked compatibility claim(s)\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write('every compatibility row names tests that exist\n');
  }
}
