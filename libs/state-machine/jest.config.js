module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'state-machine',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
