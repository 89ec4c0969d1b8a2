module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'capacity',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
