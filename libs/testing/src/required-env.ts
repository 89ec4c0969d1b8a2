/**
 * A variable the specs need from the dev services (tools/jest/int-env.js fills
 * DATABASE_URL and KAFKA_BROKERS from them); fails naming it when it is unset or blank.
 */
export function requiredEnv(name: string, neededBy = 'the integration specs'): string {
  const value = process.env[name]?.trim();
  if (!value)
    throw new Error(`${name} is not set: start the dev services (\`npm run services:up\`) or export ${name} before ${neededBy}`);
  return value;
}
