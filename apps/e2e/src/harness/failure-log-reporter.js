// Jest reporter (plain CommonJS: Jest loads reporters without transforming them).
// When a test fails, it prints what every role process wrote to its log while that
// test ran: the first broken hop of a message (an executor that never consumed, a
// controller that never dispatched...) shows there, which an assertion cannot say.
// It also marks the run as failed so the global teardown keeps the logs.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const STATE_VARIABLE = 'LANNER_E2E_STATE_FILE';
const FAILURE_MARKER = 'failed';
const MAX_LINES = 40;
const MAX_BYTES_READ = 512 * 1024;

function clusterState() {
  const file = process.env[STATE_VARIABLE];
  if (!file) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function sizeOf(file) {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function tailSince(file, fromOffset) {
  const size = sizeOf(file);
  const start = Math.max(fromOffset, size - MAX_BYTES_READ);
  if (size <= start) return [];
  const buffer = Buffer.alloc(size - start);
  const descriptor = fs.openSync(file, 'r');
  try {
    fs.readSync(descriptor, buffer, 0, buffer.length, start);
  } finally {
    fs.closeSync(descriptor);
  }
  // Health probes' request lines say nothing about a scenario.
  return buffer
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.includes('"url":"/health/'))
    .slice(-MAX_LINES);
}

class FailureLogReporter {
  constructor() {
    this.offsets = {};
  }

  onTestCaseStart() {
    const state = clusterState();
    if (!state) return;
    for (const [name, file] of Object.entries(state.logFiles)) this.offsets[name] = sizeOf(file);
  }

  onTestCaseResult(_test, result) {
    if (result.status !== 'failed') return;
    const state = clusterState();
    if (!state) return;
    fs.writeFileSync(path.join(state.workDir, FAILURE_MARKER), `${result.fullName}\n`, { flag: 'a' });
    const sections = Object.entries(state.logFiles).map(([name, file]) => {
      const lines = tailSince(file, this.offsets[name] || 0);
      const body = lines.length === 0 ? '  (nothing written)' : lines.map((line) => `  ${line}`).join('\n');
      return `----- ${name} (${file}) -----\n${body}`;
    });
    process.stderr.write(
      `\n===== "${result.fullName}" failed; the role processes' logs while it ran (last ${MAX_LINES} lines each) =====\n${sections.join('\n')}\n`,
    );
  }
}

module.exports = FailureLogReporter;
