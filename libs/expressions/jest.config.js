module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'expressions',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
