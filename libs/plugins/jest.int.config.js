module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'plugins:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  setupFiles: ['<rootDir>/../../tools/jest/int-env.js'],
  testTimeout: 120000,
};
