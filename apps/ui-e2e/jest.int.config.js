// The web UI in a real browser (Debian's chromium-headless-shell driven by playwright-core)
// against one real `lanner server standalone` for the whole run (global setup), serving
// the bundle that `nx run ui:build` wrote (the integration target builds it first).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'ui-e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/src/testing/standalone-setup.ts',
  globalTeardown: '<rootDir>/src/testing/standalone-teardown.ts',
  maxWorkers: 1,
  testTimeout: 90000,
};
