module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-worker',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
