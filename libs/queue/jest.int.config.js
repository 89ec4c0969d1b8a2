module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'queue:int',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.int-spec.ts'],
  // Fills KAFKA_BROKERS from the dev services (tools/dev-services).
  setupFiles: ['<rootDir>/../../tools/jest/int-env.js'],
  testTimeout: 60000,
};
