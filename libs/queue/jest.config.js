module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'queue',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
