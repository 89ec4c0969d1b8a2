import {
  containerRunning,
  dockerAnswers,
  removeContainer,
  startKafkaContainer,
  startPostgresContainer,
  startS3Container,
} from './docker';
import { startLocalKafka } from './kafka-local';
import { startLocalPostgres } from './postgres-local';
import { isOurProcessAlive, sleep, stopProcess } from './processes';
import { kafkaAnswers, postgresAnswers, s3Answers } from './readiness';
import { DEV_S3, devS3Env, devS3Identities, startLocalS3, waitForS3 } from './s3-local';
import { chooseServiceSource, memoizeProbe } from './source-chooser';
import { currentState, withServicesLock, writeStateFile } from './state-store';
import { SERVICE_NAMES, type RunningService, type ServiceName, type ServiceState } from './state';

export { SERVICE_NAMES } from './state';

export const ENV_VARIABLE: Record<ServiceName, 'KAFKA_BROKERS' | 'DATABASE_URL' | 'S3_ENDPOINT'> = {
  kafka: 'KAFKA_BROKERS',
  postgres: 'DATABASE_URL',
  s3: 'S3_ENDPOINT',
};

export type Report = (line: string) => void;

export interface ServiceOutcome {
  readonly name: ServiceName;
  /** What `up` did: used the variable, found ours running, or started it now. */
  readonly action: 'given' | 'reused' | 'started';
  readonly source: 'env' | RunningService['source'];
  readonly connection: string;
  /** Further variables a client needs (S3: credentials, region, bucket). */
  readonly extraEnv?: Readonly<Record<string, string>>;
  readonly pid?: number;
  readonly seconds?: number;
}

const STOP_GRACE_MS = 20_000;
const REUSE_READY_WAIT_MS = 30_000;

/**
 * S3: a recorded server is asked with the keys it was started with; a given S3_ENDPOINT
 * with the SDK's default chain (the AWS_* variables the developer set beside it).
 */
async function answers(name: ServiceName, connection: string, extraEnv?: Readonly<Record<string, string>>): Promise<boolean> {
  if (name === 'kafka') return kafkaAnswers(connection);
  if (name === 'postgres') return postgresAnswers(connection);
  const keys = extraEnv?.['AWS_ACCESS_KEY_ID']
    ? { accessKeyId: extraEnv['AWS_ACCESS_KEY_ID'], secretAccessKey: extraEnv['AWS_SECRET_ACCESS_KEY'] ?? '' }
    : {};
  return s3Answers({
    endpoint: connection,
    region: extraEnv?.['AWS_REGION'] ?? process.env['AWS_REGION'] ?? DEV_S3.region,
    ...keys,
  });
}

async function isAlive(service: RunningService): Promise<boolean> {
  return service.handle.kind === 'process' ? isOurProcessAlive(service.handle) : containerRunning(service.handle.containerId);
}

async function stopService(service: RunningService): Promise<void> {
  if (service.handle.kind === 'process') await stopProcess(service.handle, STOP_GRACE_MS);
  else await removeContainer(service.handle.containerId);
}

/** A recorded service that is alive and answers (within a short wait) is reused as is. */
async function reusable(name: ServiceName, service: RunningService): Promise<boolean> {
  const deadline = Date.now() + REUSE_READY_WAIT_MS;
  while (await isAlive(service)) {
    if (await answers(name, service.connection, service.extraEnv)) return true;
    if (Date.now() > deadline) break;
    await sleep(500);
  }
  // Alive but deaf, or dead: clear it away so a fresh one can take its place.
  await stopService(service);
  return false;
}

async function start(
  name: ServiceName,
  source: 'docker' | 'local',
  report: Report,
  onSpawned: (service: RunningService) => void,
): Promise<RunningService> {
  if (source === 'docker') {
    if (name === 'kafka') return startKafkaContainer();
    if (name === 'postgres') return startPostgresContainer();
    const container = await startS3Container(devS3Identities(), devS3Env());
    onSpawned(container);
    const id = container.handle.kind === 'container' ? container.handle.containerId : '';
    await waitForS3(container.connection, () => containerRunning(id));
    return container;
  }
  if (name === 'kafka') return startLocalKafka(report, onSpawned);
  if (name === 'postgres') return startLocalPostgres(onSpawned);
  return startLocalS3(report, onSpawned);
}

/** Starts whatever is neither given by the environment nor already running; idempotent. */
export async function servicesUp(report: Report, env: NodeJS.ProcessEnv = process.env): Promise<ServiceOutcome[]> {
  return withServicesLock(async () => {
    const state: { services: ServiceState['services'] } = { services: { ...currentState().services } };
    const dockerProbe = memoizeProbe(dockerAnswers);
    const bringUp = async (name: ServiceName): Promise<ServiceOutcome> => {
      const choice = await chooseServiceSource({ fromEnv: env[ENV_VARIABLE[name]], dockerAnswers: dockerProbe });
      if (choice.source === 'env') return { name, action: 'given', source: 'env', connection: choice.connection };
      const recorded = state.services[name];
      if (recorded && (await reusable(name, recorded))) {
        return { name, action: 'reused', ...describe(recorded) };
      }
      delete state.services[name];
      writeStateFile({ version: 1, services: state.services });
      const startedAt = Date.now();
      report(`${name}: starting (${choice.source})`);
      // A process is recorded as soon as it exists, before it is ready: if `up` is
      // interrupted while waiting, `down` can still stop it.
      const record = (service: RunningService): void => {
        state.services[name] = service;
        writeStateFile({ version: 1, services: state.services });
      };
      let started: RunningService;
      try {
        started = await start(name, choice.source, report, record);
      } catch (error) {
        const spawned = state.services[name];
        if (spawned) {
          await stopService(spawned);
          delete state.services[name];
          writeStateFile({ version: 1, services: state.services });
        }
        throw error;
      }
      record(started);
      return { name, action: 'started', ...describe(started), seconds: (Date.now() - startedAt) / 1000 };
    };
    const settled = await Promise.allSettled(SERVICE_NAMES.map(bringUp));
    const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
    return settled.map((result) => (result as PromiseFulfilledResult<ServiceOutcome>).value);
  }, report);
}

function describe(service: RunningService): Pick<ServiceOutcome, 'source' | 'connection' | 'extraEnv' | 'pid'> {
  return {
    source: service.source,
    connection: service.connection,
    ...(service.extraEnv ? { extraEnv: service.extraEnv } : {}),
    ...(service.handle.kind === 'process' ? { pid: service.handle.pid } : {}),
  };
}

/** Stops what `up` started (all of it, or only the named services) and forgets it. */
export async function servicesDown(report: Report, only: readonly ServiceName[] = SERVICE_NAMES): Promise<void> {
  await withServicesLock(async () => {
    const services = { ...currentState().services };
    await Promise.all(
      only.map(async (name) => {
        const service = services[name];
        if (!service) {
          report(`${name}: not started by dev-services, nothing to stop`);
          return;
        }
        await stopService(service);
        delete services[name];
        writeStateFile({ version: 1, services });
        report(`${name}: stopped`);
      }),
    );
  }, report);
}

export interface ServiceStatus {
  readonly name: ServiceName;
  readonly source: 'env' | RunningService['source'] | 'none';
  readonly connection?: string;
  readonly extraEnv?: Readonly<Record<string, string>>;
  readonly pid?: number;
  /** Answers a request right now (Kafka: list + produce; PostgreSQL: SELECT 1; S3: a signed ListBuckets). */
  readonly ready: boolean;
  readonly logFile?: string;
}

export async function servicesStatus(env: NodeJS.ProcessEnv = process.env): Promise<ServiceStatus[]> {
  const state = currentState();
  return Promise.all(
    SERVICE_NAMES.map(async (name): Promise<ServiceStatus> => {
      const given = env[ENV_VARIABLE[name]]?.trim();
      if (given) return { name, source: 'env', connection: given, ready: await answers(name, given) };
      const recorded = state.services[name];
      if (!recorded) return { name, source: 'none', ready: false };
      const ready = (await isAlive(recorded)) && (await answers(name, recorded.connection, recorded.extraEnv));
      return { name, ...describe(recorded), ready, ...(recorded.logFile ? { logFile: recorded.logFile } : {}) };
    }),
  );
}
