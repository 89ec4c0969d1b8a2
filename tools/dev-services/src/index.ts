/**
 * Real Kafka and PostgreSQL for tests and development. Tests only read where the
 * services are; starting and stopping them is the CLI's job (tools/dev-services/cli.js).
 */
import { readStateFile } from './state-store';
import { serviceEnvOf, type ServiceEnv } from './state';

export type { ServiceEnv } from './state';
export { gcPauses, gcPausesBetween, type GcPause, type GcPauseKind, type GcPauseSummary } from './jvm-gc-log';
export { KAFKA_GC_LOG } from './paths';

/**
 * The connection strings for the integration tests: each variable set in the
 * environment wins, otherwise the value recorded by `npm run services:up`.
 * Undefined when neither says anything.
 */
export function readServiceEnv(env: NodeJS.ProcessEnv = process.env): ServiceEnv | undefined {
  const recorded = readStateFile();
  const fromState = recorded ? serviceEnvOf(recorded) : {};
  const KAFKA_BROKERS = env['KAFKA_BROKERS']?.trim() || fromState.KAFKA_BROKERS;
  const DATABASE_URL = env['DATABASE_URL']?.trim() || fromState.DATABASE_URL;
  if (!KAFKA_BROKERS && !DATABASE_URL) return undefined;
  // S3: a given S3_ENDPOINT comes with the developer's own AWS_* variables; the recorded one with its keys.
  const s3 = env['S3_ENDPOINT']?.trim()
    ? { S3_ENDPOINT: env['S3_ENDPOINT'].trim() }
    : Object.fromEntries(Object.entries(fromState).filter(([name]) => name !== 'KAFKA_BROKERS' && name !== 'DATABASE_URL'));
  return { ...(KAFKA_BROKERS ? { KAFKA_BROKERS } : {}), ...(DATABASE_URL ? { DATABASE_URL } : {}), ...s3 };
}
