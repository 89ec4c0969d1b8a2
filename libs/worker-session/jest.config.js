module.exports = {
  // The shared preset is a workspace file, not a library; the boundary rule does not apply.
  ...require('../../jest.preset.js'),
  displayName: 'worker-session',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
