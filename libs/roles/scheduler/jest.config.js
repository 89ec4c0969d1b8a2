module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-scheduler',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
