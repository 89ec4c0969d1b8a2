module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'worker-selector',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
