#!/usr/bin/env node
// The full API fuzz run: starts a fresh `lanner server standalone` (as the e2e
// suite does), sends --requests requests generated from its OpenAPI document
// with --seed, checks that it is still healthy and runs an ordinary flow to
// SUCCESS, prints a summary (also as a row for docs/RELIABILITY.md) and exits
// 1 when any request found a problem.
//
//   node tools/fuzz/run.js --seed 42 --requests 10000 [--concurrency 4]
'use strict';
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');

const workspaceRoot = path.join(__dirname, '..', '..');
if (!process.env.SWC_NODE_PROJECT) process.env.SWC_NODE_PROJECT = path.join(workspaceRoot, 'tsconfig.base.json');
require('@swc-node/register');
const { fuzzApi, rssBytes, runOrdinaryFlow } = require(path.join(workspaceRoot, 'apps/e2e/src/fuzz/api-fuzz.ts'));
const { readClusterState } = require(path.join(workspaceRoot, 'apps/e2e/src/harness/cluster-state.ts'));
const standaloneSetup = require(path.join(workspaceRoot, 'apps/e2e/src/harness/standalone-setup.ts')).default;
const standaloneTeardown = require(path.join(workspaceRoot, 'apps/e2e/src/harness/standalone-teardown.ts')).default;

function positive(name, text) {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    process.stderr.write(`--${name}: expected a whole number above 0, got "${text}"\n`);
    process.exit(2);
  }
  return value;
}

const MiB = 1024 * 1024;

async function main() {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '42' },
      requests: { type: 'string', default: '10000' },
      concurrency: { type: 'string', default: '4' },
    },
  });
  const seed = positive('seed', values.seed);
  const requests = positive('requests', values.requests);
  const concurrency = positive('concurrency', values.concurrency);

  await standaloneSetup();
  let failed = true;
  try {
    const state = readClusterState();
    const pid = globalThis.__lannerStandalone.child.pid;
    const target = { apiUrl: state.apiUrl, adminToken: state.adminToken, pid };
    const report = await fuzzApi(target, {
      seed,
      requests,
      concurrency,
      secrets: [state.workDir],
      onProgress: (done) => done % 1000 === 0 && process.stderr.write(`  ${done} requests\n`),
    });
    const ready = (await fetch(`${state.apiUrl}/health/ready`)).status;
    const ordinary = await runOrdinaryFlow(target, 'fuzz.after', `ordinary-${seed}`);
    const healthy = rssBytes(pid) > 0 && ready === 200 && ordinary.state === 'SUCCESS';
    const summary = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / MiB / 1024)} GiB, Node ${process.version}`,
      seed,
      requests: report.requests,
      operations: `${report.operationsCovered}/${report.operations}`,
      statuses: report.statuses,
      findings: report.findings.length,
      startRssMiB: Math.round(report.startRssBytes / MiB),
      maxRssMiB: Math.round(report.maxRssBytes / MiB),
      slowestAnswerMs: report.slowestAnswerMs,
      durationS: Math.round(report.durationMs / 1000),
      afterwards: { ready, ordinaryFlow: ordinary.state },
    };
    for (const finding of report.findings.slice(0, 20)) process.stdout.write(`FINDING ${JSON.stringify(finding)}\n`);
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    const statuses = Object.entries(report.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    process.stdout.write(
      `\n| ${summary.date.slice(0, 10)} | ${seed} | ${report.requests} | ${statuses} | ${report.findings.length} | ${summary.startRssMiB} → ${summary.maxRssMiB} MiB | ${ready} / ${ordinary.state} | ${summary.machine} |\n`,
    );
    failed = report.findings.length > 0 || !healthy;
  } finally {
    await standaloneTeardown();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  process.stderr.write(`fuzz run failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
