module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-controller',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
