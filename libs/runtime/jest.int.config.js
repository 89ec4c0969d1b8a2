module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'runtime:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  setupFiles: ['<rootDir>/../../tools/jest/int-env.js'],
  testTimeout: 180000,
};
