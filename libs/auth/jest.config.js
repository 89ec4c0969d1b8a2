module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'auth',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
