// The end-to-end suite: ONE cluster of role processes for the whole run (global setup),
// shared by every spec file, which run in band (the machine has 2 cores).
// KAFKA_BROKERS / DATABASE_URL come from the environment or from `npm run services:up`;
// loaded here because the global setup runs before any `setupFiles`.
require('../../tools/jest/int-env.js');

module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  // The API fuzz and the client tools (the CLI, the Terraform provider) speak only REST: the
  // standalone run (jest.standalone.config.js) covers them; the roles' distribution adds nothing.
  // So does the Kestra-compatibility corpus (the flow language is the same in both).
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/src/fuzz/',
    '/src/(cli|terraform-provider|kestra-corpus)\\.e2e-spec\\.ts$',
  ],
  globalSetup: '<rootDir>/src/harness/global-setup.ts',
  globalTeardown: '<rootDir>/src/harness/global-teardown.ts',
  reporters: ['default', '<rootDir>/src/harness/failure-log-reporter.js'],
  maxWorkers: 1,
  testTimeout: 90000,
  // The specs run in this process (in band) beside the cluster's child processes, which the
  // global teardown stops. A spec that fails half way can leave a timer or a socket of its
  // own behind, and Jest would then wait for it forever instead of reporting the failure.
  forceExit: true,
};
