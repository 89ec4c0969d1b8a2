// The e2e subset that runs against `lanner server standalone` (what `npm start` runs):
// the same spec files as the distributed run, minus those that need two workers or a
// role restart. One standalone process for the whole run (global setup).
require('../../tools/jest/int-env.js');

const SUBSET = [
  'two-task-flow',
  'outputs-between-tasks',
  'retry',
  'timeout',
  'kill',
  'pause-resume',
  'subflow',
  'logs-follow',
  'hostile-text',
  'hostile-expressions',
  'hostile-flow-size',
  'fuzz/api-fuzz',
  'cli',
  'terraform-provider',
  'kestra-corpus',
  'task-isolation',
  'files-outputs',
  'files-inputs',
  'files-in-expressions',
  'namespace-files',
  'schedule',
  'backfill',
  'flow-trigger',
  'webhook',
  'system-worker',
];

module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'e2e-standalone',
  rootDir: __dirname,
  testMatch: SUBSET.map((name) => `<rootDir>/src/${name}.e2e-spec.ts`),
  globalSetup: '<rootDir>/src/harness/standalone-setup.ts',
  globalTeardown: '<rootDir>/src/harness/standalone-teardown.ts',
  reporters: ['default', '<rootDir>/src/harness/failure-log-reporter.js'],
  maxWorkers: 1,
  testTimeout: 90000,
};
