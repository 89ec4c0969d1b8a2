module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-worker:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  setupFiles: ['<rootDir>/../../../tools/jest/int-env.js'],
  testTimeout: 60000,
};
