module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'frames',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
