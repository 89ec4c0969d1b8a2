module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'plugins',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
