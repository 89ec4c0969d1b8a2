module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-api',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
