module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'dead-letters',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
