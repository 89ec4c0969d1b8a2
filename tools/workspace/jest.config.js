module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'workspace',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  testTimeout: 60000,
};
