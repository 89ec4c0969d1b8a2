module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'model',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
