module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-executor',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
