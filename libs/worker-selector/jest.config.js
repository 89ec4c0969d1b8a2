module.exports = {
  // The shared preset is a workspace file, not a library; the boundary rule does not apply.
  // eslint-disable-next-line @nx/enforce-module-boundaries
  ...require('../../jest.preset.js'),
  displayName: 'worker-selector',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
