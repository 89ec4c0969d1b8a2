#!/usr/bin/env node
// The full chaos run: the e2e cluster (real Kafka and PostgreSQL, every role its own
// process) plus the chaos spec's extra executor, controller and worker; --executions
// executions of the mixed flow while the seeded driver kills, restarts, SIGTERMs and
// pauses processes (one round of each per 200 executions unless --rounds). Prints the
// report (kept in --report) and exits 1 when anything was lost, leaked or run twice
// without a disruption to explain it.
//
//   node tools/chaos/run.js --seed 7 --executions 1000 [--rounds 5] [--report chaos-7.txt]
'use strict';
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');

const workspaceRoot = path.join(__dirname, '..', '..');

function positive(name, text) {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    process.stderr.write(`--${name}: expected a whole number above 0, got "${text}"\n`);
    process.exit(2);
  }
  return String(value);
}

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '7' },
    executions: { type: 'string', default: '1000' },
    rounds: { type: 'string' },
    report: { type: 'string' },
  },
});
const env = {
  ...process.env,
  LANNER_CHAOS_SEED: positive('seed', values.seed),
  LANNER_CHAOS_EXECUTIONS: positive('executions', values.executions),
};
if (values.rounds !== undefined) env.LANNER_CHAOS_ROUNDS = positive('rounds', values.rounds);
if (values.report !== undefined) env.LANNER_CHAOS_REPORT = path.resolve(values.report);

const jest = require.resolve('jest/bin/jest', { paths: [workspaceRoot] });
const child = spawn(
  process.execPath,
  [jest, '-c', 'jest.e2e.config.js', '--runInBand', '--testPathPatterns', 'src/chaos\\.e2e-spec\\.ts$'],
  { cwd: path.join(workspaceRoot, 'apps', 'e2e'), env, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
