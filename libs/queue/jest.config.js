module.exports = {
  // The shared preset sits at the workspace root; it is config, not a library import.
  // eslint-disable-next-line @nx/enforce-module-boundaries
  ...require('../../jest.preset.js'),
  displayName: 'queue',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
