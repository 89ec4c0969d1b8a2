// The image's test: runs the built image with buildah against the development services
// (DATABASE_URL / KAFKA_BROKERS, filled by tools/jest/int-env.js). Started by
// run-image-test.sh once the image is built.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'image',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int-spec.ts'],
  setupFiles: ['<rootDir>/../../tools/jest/int-env.js'],
  testTimeout: 180000,
};
