#!/usr/bin/env node
// First step of `npm start` and `npm test`: on a fresh clone (no node_modules) or after
// a pull that changed package-lock.json, runs `npm ci` so that the two commands work
// with nothing run before them. Plain Node on purpose: it runs before any dependency
// is installed.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const LOCKFILE = path.join(ROOT, 'package-lock.json');
// npm writes this file at the end of every install, so its time says when
// node_modules was last brought in line with the lockfile.
const INSTALL_MARK = path.join(ROOT, 'node_modules', '.package-lock.json');

function modifiedAt(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Why node_modules needs an install, or undefined when it is current. */
function installReason() {
  const installed = modifiedAt(INSTALL_MARK);
  if (installed === undefined) return 'node_modules is missing';
  const locked = modifiedAt(LOCKFILE);
  if (locked !== undefined && locked > installed) return 'package-lock.json is newer than node_modules';
  return undefined;
}

const reason = installReason();
if (reason) {
  process.stdout.write(`${reason}: running npm ci\n`);
  // npm_execpath is the npm that runs this script (`npm start`); fall back to the npm on PATH.
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli && npmCli.endsWith('.js') ? [process.execPath, [npmCli]] : ['npm', []];
  const result = spawnSync(command, [...args, 'ci', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`could not run npm ci: ${result.error.message}\n`);
    process.exit(1);
  }
  if (result.status !== 0) {
    process.stderr.write(`npm ci failed (exit ${result.status}); fix the install error above, then run the command again\n`);
    process.exit(result.status ?? 1);
  }
  // A lockfile stamped in the future (a clock skew between checkout and install) would
  // make every later run install again: the mark is made at least as new as the lockfile.
  // Rounded up to the next millisecond: file times keep nanoseconds, a Date only milliseconds.
  const markTime = new Date(Math.max(Date.now(), Math.floor(modifiedAt(LOCKFILE) ?? 0) + 1));
  if (fs.existsSync(INSTALL_MARK)) fs.utimesSync(INSTALL_MARK, markTime, markTime);
}
