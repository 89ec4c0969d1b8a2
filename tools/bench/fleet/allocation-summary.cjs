// Summarises a profile written by allocation-sampler.cjs: MB allocated per second,
// and the functions and call paths that allocated most (self size), and the
// Lanner function each allocation comes from (its innermost frame in libs/ or apps/,
// so what a library allocates on Lanner's behalf counts for the Lanner caller).
//   node tools/bench/fleet/allocation-summary.cjs /tmp/lanner-allocations.heapprofile [top=20]
'use strict';
const fs = require('node:fs');

const [file, topText] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node tools/bench/fleet/allocation-summary.cjs <profile> [top=20]\n');
  process.exit(2);
}
const top = Number(topText || 20);
const { seconds, profile } = JSON.parse(fs.readFileSync(file, 'utf8'));

const where = (frame) => {
  const url = frame.url
    .replace(/^.*node_modules\//, '')
    .replace(/^file:\/\//, '')
    .replace(/^.*?\/(libs|apps|tools)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber + 1}`;
};
const byFunction = new Map();
const byPath = new Map();
const byLannerCaller = new Map();
let total = 0;
const isLanner = (name) => / (libs|apps)\//.test(name);
const walk = (node, callers) => {
  const name = where(node.callFrame);
  const lanner = isLanner(name) ? name : callers.find(isLanner) || '(no Lanner frame)';
  byLannerCaller.set(lanner, (byLannerCaller.get(lanner) || 0) + node.selfSize);
  total += node.selfSize;
  byFunction.set(name, (byFunction.get(name) || 0) + node.selfSize);
  const path = [name, ...callers].slice(0, 5).join(' < ');
  byPath.set(path, (byPath.get(path) || 0) + node.selfSize);
  for (const child of node.children) walk(child, [name, ...callers]);
};
walk(profile.head, []);

const lines = (map) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, size]) => `${((size / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
process.stdout.write(
  [
    `${(total / 1e6).toFixed(1)} MB sampled over ${seconds.toFixed(1)} s: ${(total / 1e6 / seconds).toFixed(2)} MB/s`,
    '',
    'by function (self):',
    ...lines(byFunction),
    '',
    'by call path (self, innermost first):',
    ...lines(byPath),
    '',
    'by Lanner caller (innermost Lanner frame):',
    ...lines(byLannerCaller),
    '',
  ].join('\n'),
);
