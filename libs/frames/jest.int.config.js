module.exports = {
  // The shared preset is a workspace file, not a library; the boundary rule does not apply.
  ...require('../../jest.preset.js'),
  displayName: 'frames:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  testTimeout: 60000,
};
