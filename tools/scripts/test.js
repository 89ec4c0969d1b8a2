#!/usr/bin/env node
// `npm test`: the whole check, in the order a failure is cheapest to find, stopping at
// the first failing step. Ends with one line "N passed, N failed" counting every Jest
// test of the run (CI reads that line) and a non-zero exit on any failure.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const SERVICES_CLI = path.join(ROOT, 'tools', 'dev-services', 'cli.js');
const NX = path.join(BIN, 'nx');
const NX_COMMON = ['--outputStyle=stream'];

const env = { ...process.env, NX_DAEMON: 'false', KAFKAJS_NO_PARTITIONER_WARNING: '1' };
const counts = { passed: 0, failed: 0, skipped: 0 };
/** Services this run started itself, so only those are stopped at the end. */
let startedServices = [];
/** The children running now (a step, and the image test beside the integration tests). */
const running = new Set();
let interrupted = false;

function heading(text) {
  process.stdout.write(`\n===== ${text} =====\n`);
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/**
 * Adds Jest's "Tests:" summary to the counts. A suite that fails before any test runs
 * (a compile error) reports failed suites but no failed tests; it counts as one failure.
 */
function countJestSummaries(output) {
  let pendingSuiteFailures = 0;
  for (const raw of output.split('\n')) {
    const line = raw.replace(ANSI, '');
    const suites = /Test Suites:\s+(\d+) failed/.exec(line);
    if (suites) pendingSuiteFailures = Number(suites[1]);
    const tests = /Tests:\s+(.*\d+ total)/.exec(line);
    if (!tests) continue;
    const number = (word) => Number((new RegExp(`(\\d+) ${word}`).exec(tests[1]) || [0, 0])[1]);
    const failed = number('failed');
    counts.passed += number('passed');
    counts.failed += failed > 0 ? failed : pendingSuiteFailures;
    counts.skipped += number('skipped') + number('todo');
    pendingSuiteFailures = 0;
  }
}

const MINUTE = 60_000;

/** Signals the child's whole process group: nx runs Jest in grandchildren. */
function killTree(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/**
 * Runs a command, streaming its output and keeping it for the Jest counts. A step
 * that outlives its time limit (a Jest left waiting on an open handle) is killed and
 * fails, so CI reports it instead of waiting out its own limit.
 */
function run(command, args, { quiet = false, limitMinutes = 20 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.stderr.write(
        `\n${path.basename(command)} ${args.join(' ')}: still running after ${limitMinutes} min, stopping it\n`,
      );
      killTree(child, 'SIGTERM');
      setTimeout(() => killTree(child, 'SIGKILL'), 10_000).unref();
    }, limitMinutes * MINUTE);
    let output = '';
    const keep = (stream, sink) =>
      child[stream].on('data', (chunk) => {
        output += chunk.toString();
        if (!quiet) sink.write(chunk);
      });
    keep('stdout', process.stdout);
    keep('stderr', process.stderr);
    child.on('error', (error) => {
      output += `${error.message}\n`;
      process.stderr.write(`could not run ${command}: ${error.message}\n`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ ok: code === 0 && !interrupted && !timedOut, code: code ?? (signal ? 128 : 1), output });
    });
  });
}

async function step(title, command, args, { countTests = false, limitMinutes } = {}) {
  heading(title);
  const startedAt = Date.now();
  const result = await run(command, args, { limitMinutes });
  if (countTests) countJestSummaries(result.output);
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  process.stdout.write(`----- ${title}: ${result.ok ? 'ok' : `FAILED (exit ${result.code})`} in ${seconds} s\n`);
  if (!result.ok) throw new StepFailed(title);
}

class StepFailed extends Error {}

/** Uses services already running (or given by env); starts the rest and remembers them. */
async function servicesUp() {
  heading('services: node tools/dev-services/cli.js up');
  // What answers before `up` is someone else's to keep; whatever else is running
  // afterwards (even after a failed or interrupted `up`) this run started.
  const before = await run(process.execPath, [SERVICES_CLI, 'status', '--json'], { quiet: true, limitMinutes: 2 });
  let alreadyThere = [];
  try {
    alreadyThere = JSON.parse(before.output)
      .filter((service) => service.ready)
      .map((service) => service.name);
  } catch {
    // No readable status: assume nothing was running, so everything `up` starts is ours.
  }
  startedServices = ['kafka', 'postgres', 's3'].filter((name) => !alreadyThere.includes(name));
  const result = await run(process.execPath, [SERVICES_CLI, 'up'], { limitMinutes: 15 });
  if (!result.ok) throw new StepFailed('services');
  for (const match of result.output.matchAll(
    /^(KAFKA_BROKERS|DATABASE_URL|S3_ENDPOINT|S3_BUCKET|AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AWS_REGION)=(.+)$/gm,
  ))
    env[match[1]] = match[2].trim();
}

async function servicesDown() {
  // A service given by env is never in the state file; `down` says so and stops nothing.
  if (startedServices.length === 0) return;
  heading(`services: stopping what this run started (${startedServices.join(', ')})`);
  const names = startedServices;
  startedServices = [];
  await run(process.execPath, [SERVICES_CLI, 'down', ...names]);
}

function summary() {
  const skipped = counts.skipped > 0 ? `, ${counts.skipped} skipped` : '';
  process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed${skipped}\n`);
}

async function main() {
  await step('lint', NX, ['run-many', '-t', 'lint', ...NX_COMMON]);
  await step('document references', process.execPath, [path.join(ROOT, 'tools', 'scripts', 'check-doc-links.js')], {
    limitMinutes: 2,
  });
  await step(
    'Kestra compatibility claims',
    process.execPath,
    [path.join(ROOT, 'tools', 'scripts', 'check-compatibility-doc.js')],
    { limitMinutes: 2 },
  );
  await step('typecheck', path.join(BIN, 'tsc'), ['-p', 'tsconfig.json', '--noEmit'], { limitMinutes: 10 });
  const codegenCheck = path.join(ROOT, 'tools', 'scripts', 'check-codegen.js');
  if (fs.existsSync(codegenCheck)) {
    await step('codegen is up to date', process.execPath, [codegenCheck], { limitMinutes: 10 });
  }
  await step('unit tests', NX, ['run-many', '-t', 'test', '--skip-nx-cache', '--parallel=2', ...NX_COMMON], {
    countTests: true,
  });
  await servicesUp();
  const cli = path.join(ROOT, 'bin', 'lanner.js');
  if (fs.existsSync(cli)) {
    await step('database migrations', process.execPath, [cli, 'db', 'migrate'], { limitMinutes: 5 });
  }
  // The image test (buildah build, then migrate and the api run from the image) runs beside
  // the integration tests: they mostly wait on Kafka, timers and child processes, so the
  // build's CPU fits in their gaps. Its output is printed once both are done.
  // The web UI's bundle is built once, here: the image build copies it and the browser
  // tests serve it, and two builds at once would write the same apps/ui/dist.
  await step('web UI bundle', NX, ['run', 'ui:build', '--skip-nx-cache', ...NX_COMMON], { limitMinutes: 10 });
  const imageTitle = 'image: build and start (deploy/image/run-image-test.sh)';
  const imageStartedAt = Date.now();
  const image = run(path.join(ROOT, 'deploy', 'image', 'run-image-test.sh'), [], { quiet: true, limitMinutes: 25 });
  let integrationFailed;
  try {
    await step(
      'integration tests',
      NX,
      ['run-many', '-t', 'integration', '--parallel=1', '--skip-nx-cache', '--excludeTaskDependencies', ...NX_COMMON],
      {
        countTests: true,
        limitMinutes: 55,
      },
    );
  } catch (error) {
    integrationFailed = error;
  }
  heading(imageTitle);
  const imageResult = await image;
  process.stdout.write(imageResult.output);
  countJestSummaries(imageResult.output);
  const imageSeconds = ((Date.now() - imageStartedAt) / 1000).toFixed(1);
  process.stdout.write(
    `----- ${imageTitle}: ${imageResult.ok ? 'ok' : `FAILED (exit ${imageResult.code})`} in ${imageSeconds} s (beside the integration tests)\n`,
  );
  if (integrationFailed) throw integrationFailed;
  if (!imageResult.ok) throw new StepFailed(imageTitle);
}

function onSignal(signal) {
  if (interrupted) return;
  interrupted = true;
  process.stderr.write(`\n${signal}: stopping\n`);
  // The children run in their own process groups, so the terminal's Ctrl-C reaches
  // only this script: pass it on.
  for (const child of running) killTree(child, signal);
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

main()
  .then(
    () => 0,
    (error) => {
      if (!(error instanceof StepFailed)) process.stderr.write(`npm test: ${error && error.message}\n`);
      return 1;
    },
  )
  .then(async (code) => {
    await servicesDown();
    summary();
    process.exitCode = interrupted ? 130 : code !== 0 || counts.failed > 0 ? 1 : 0;
  });
