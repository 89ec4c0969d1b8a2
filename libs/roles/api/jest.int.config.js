// Integration specs against the real PostgreSQL and Kafka of the dev services
// (DATABASE_URL / KAFKA_BROKERS, filled by tools/jest/int-env.js).
module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-api:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  setupFiles: ['<rootDir>/../../../tools/jest/int-env.js'],
  testTimeout: 60000,
};
