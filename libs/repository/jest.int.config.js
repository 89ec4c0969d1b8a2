// Integration specs against a real PostgreSQL (DATABASE_URL, filled from the
// dev services by tools/jest/int-env.js). Each spec file creates, migrates and
// drops a database of its own on that server (src/testing/test-database.ts).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'repository:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  setupFiles: ['<rootDir>/../../tools/jest/int-env.js'],
  testTimeout: 60000,
};
