module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-indexer',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
