// Integration specs against the real Kafka and PostgreSQL of the dev services
// (KAFKA_BROKERS / DATABASE_URL, filled by tools/jest/int-env.js).
module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'role-scheduler:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  setupFiles: ['<rootDir>/../../../tools/jest/int-env.js'],
  testTimeout: 180000,
};
