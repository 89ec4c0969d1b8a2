module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'frames:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  testTimeout: 60000,
};
