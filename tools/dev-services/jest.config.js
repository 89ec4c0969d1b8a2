module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'dev-services',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
