/**
 * The state file records what `up` started so that `down` stops exactly that and
 * nothing else, and so that tests can find the connection strings. Parsing is strict:
 * a file that does not have the expected shape is treated as absent, never guessed at.
 */
export type ServiceName = 'kafka' | 'postgres' | 's3';

export const SERVICE_NAMES: readonly ServiceName[] = ['kafka', 'postgres', 's3'];

/** Where a running service came from; `env` services are never stopped by us. */
export type ServiceSource = 'local' | 'docker';

export interface LocalProcess {
  readonly kind: 'process';
  readonly pid: number;
  /** A word the process's command line must contain, so a reused pid is never killed. */
  readonly commandMarker: string;
  /** Signal that asks the process for a quick clean stop (PostgreSQL: SIGINT = fast shutdown). */
  readonly stopSignal: 'SIGTERM' | 'SIGINT';
}

export interface DockerContainer {
  readonly kind: 'container';
  readonly containerId: string;
}

export interface RunningService {
  readonly source: ServiceSource;
  /** KAFKA_BROKERS, DATABASE_URL or S3_ENDPOINT value. */
  readonly connection: string;
  /** Further variables a client needs (the S3 store's credentials, region and bucket). */
  readonly extraEnv?: Readonly<Record<string, string>>;
  readonly handle: LocalProcess | DockerContainer;
  readonly logFile?: string;
  readonly startedAt: string;
}

export interface ServiceState {
  readonly version: 1;
  readonly services: Partial<Record<ServiceName, RunningService>>;
}

export const EMPTY_STATE: ServiceState = { version: 1, services: {} };

export interface ServiceEnv {
  readonly KAFKA_BROKERS?: string;
  readonly DATABASE_URL?: string;
  readonly S3_ENDPOINT?: string;
  readonly [variable: string]: string | undefined;
}

export function parseServiceState(text: string): ServiceState | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || raw['version'] !== 1 || !isRecord(raw['services'])) return undefined;
  const services: Partial<Record<ServiceName, RunningService>> = {};
  for (const name of SERVICE_NAMES) {
    const entry = raw['services'][name];
    if (entry === undefined) continue;
    const service = parseRunningService(entry);
    if (!service) return undefined;
    services[name] = service;
  }
  return { version: 1, services };
}

export function serializeServiceState(state: ServiceState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

export function serviceEnvOf(state: ServiceState): ServiceEnv {
  return {
    ...(state.services.kafka ? { KAFKA_BROKERS: state.services.kafka.connection } : {}),
    ...(state.services.postgres ? { DATABASE_URL: state.services.postgres.connection } : {}),
    ...(state.services.s3 ? { ...state.services.s3.extraEnv, S3_ENDPOINT: state.services.s3.connection } : {}),
  };
}

function parseRunningService(value: unknown): RunningService | undefined {
  if (!isRecord(value)) return undefined;
  const { source, connection, handle, logFile, startedAt, extraEnv } = value;
  if (source !== 'local' && source !== 'docker') return undefined;
  if (typeof connection !== 'string' || connection.length === 0) return undefined;
  if (typeof startedAt !== 'string') return undefined;
  if (logFile !== undefined && typeof logFile !== 'string') return undefined;
  if (extraEnv !== undefined && !(isRecord(extraEnv) && Object.values(extraEnv).every((v) => typeof v === 'string')))
    return undefined;
  const parsedHandle = parseHandle(handle);
  if (!parsedHandle) return undefined;
  return {
    source,
    connection,
    handle: parsedHandle,
    startedAt,
    ...(logFile !== undefined ? { logFile } : {}),
    ...(extraEnv !== undefined ? { extraEnv: extraEnv as Record<string, string> } : {}),
  };
}

function parseHandle(value: unknown): LocalProcess | DockerContainer | undefined {
  if (!isRecord(value)) return undefined;
  if (value['kind'] === 'process') {
    const { pid, commandMarker, stopSignal } = value;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 1) return undefined;
    if (typeof commandMarker !== 'string' || commandMarker.length === 0) return undefined;
    if (stopSignal !== 'SIGTERM' && stopSignal !== 'SIGINT') return undefined;
    return { kind: 'process', pid, commandMarker, stopSignal };
  }
  if (value['kind'] === 'container') {
    const { containerId } = value;
    if (typeof containerId !== 'string' || containerId.length === 0) return undefined;
    return { kind: 'container', containerId };
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
