module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'runtime',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
