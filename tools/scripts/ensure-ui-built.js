#!/usr/bin/env node
// Before `npm start` and the image build: builds the web UI's bundle (apps/ui/dist, which the api role
// serves at /) when it is missing or older than the UI's sources, so a fresh clone
// needs no extra command. A current bundle costs one scan of apps/ui's sources.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const UI = path.join(__dirname, '..', '..', 'apps', 'ui');
const BUNDLE_INDEX = path.join(UI, 'dist', 'index.html');
const SOURCES = ['src', 'index.html', 'vite.config.mts'].map((entry) => path.join(UI, entry));
const VITE = path.join(__dirname, '..', '..', 'node_modules', 'vite', 'bin', 'vite.js');

function newestChange(entry) {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(entry).reduce((newest, name) => Math.max(newest, newestChange(path.join(entry, name))), stat.mtimeMs);
}

function main() {
  const builtAt = fs.existsSync(BUNDLE_INDEX) ? fs.statSync(BUNDLE_INDEX).mtimeMs : 0;
  if (builtAt > 0 && SOURCES.every((source) => newestChange(source) <= builtAt)) return 0;
  console.log(builtAt === 0 ? 'Building the web UI (first start)…' : 'The web UI changed: rebuilding it…');
  const build = spawnSync(process.execPath, [VITE, 'build', '--logLevel', 'warn'], { cwd: UI, stdio: 'inherit' });
  // With --strict (the image build) a failed build fails. Otherwise the API is usable
  // without the UI: a failed build is reported, and Lanner starts anyway.
  if (build.status !== 0 && process.argv.includes('--strict')) return 1;
  if (build.status !== 0)
    console.error('The web UI did not build (see above); the API still starts, and / says the UI is not built.');
  return 0;
}

process.exitCode = main();
