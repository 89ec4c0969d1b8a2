module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'repository',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
