// Unit specs of the UI's pure modules (src/lib): no browser, no DOM.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'ui',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
