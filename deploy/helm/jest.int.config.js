// The chart's tests: the real helm (lint, template) and kubeconform against the
// Kubernetes schemas, all installed by tools/ci/install-helm-tools.sh (the integration
// target runs it first; it keeps what is cached).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'helm-chart:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int-spec.ts'],
  testTimeout: 60000,
};
