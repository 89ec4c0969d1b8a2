import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from './processes';
import { KAFKA_VERSION } from './kafka-local';
import { KAFKA_MAX_RECORD_BYTES } from './kafka-properties';
import type { RunningService } from './state';

/**
 * The Docker path, used only when an engine answers. The containers must outlive the
 * `up` command, so testcontainers' reaper (which removes them when the process that
 * started them exits) is turned off and `down` removes them by id instead.
 */
process.env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true';

const PROBE_TIMEOUT_MS = 5_000;

/** Where Docker engines usually listen; without one of these there is nothing to ask. */
function dockerEndpointHinted(): boolean {
  if (process.env['DOCKER_HOST']) return true;
  const runtimeDir = process.env['XDG_RUNTIME_DIR'];
  const sockets = [
    '/var/run/docker.sock',
    join(homedir(), '.docker', 'run', 'docker.sock'),
    join(homedir(), '.docker', 'desktop', 'docker.sock'),
    ...(runtimeDir ? [join(runtimeDir, 'docker.sock')] : []),
  ];
  return sockets.some((socket) => existsSync(socket));
}

/** Quick: no socket and no DOCKER_HOST means no probe at all (and no testcontainers load). */
export async function dockerAnswers(): Promise<boolean> {
  if (!dockerEndpointHinted()) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolveTimeout) => {
      timer = setTimeout(() => resolveTimeout(false), PROBE_TIMEOUT_MS);
      timer.unref();
    });
    const answered = await Promise.race([getContainerRuntimeClient().then(() => true), timeout]);
    if (timer) clearTimeout(timer);
    return answered;
  } catch {
    return false;
  }
}

export async function startKafkaContainer(): Promise<RunningService> {
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
  // Same port inside and outside, so the advertised address is right before the container starts.
  const port = await freeLoopbackPort();
  const container = await new GenericContainer(`apache/kafka:${KAFKA_VERSION}`)
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: `PLAINTEXT://0.0.0.0:${port},CONTROLLER://0.0.0.0:9093`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${host}:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_MESSAGE_MAX_BYTES: String(KAFKA_MAX_RECORD_BYTES),
      KAFKA_REPLICA_FETCH_MAX_BYTES: String(KAFKA_MAX_RECORD_BYTES),
    })
    .withExposedPorts({ container: port, host: port })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(120_000)
    .start();
  return {
    source: 'docker',
    connection: `${host}:${port}`,
    handle: { kind: 'container', containerId: container.getId() },
    startedAt: new Date().toISOString(),
  };
}

export async function startPostgresContainer(): Promise<RunningService> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:17-alpine')
    .withDatabase('lanner')
    .withUsername('lanner')
    .withPassword('lanner')
    .start();
  return {
    source: 'docker',
    connection: container.getConnectionUri(),
    handle: { kind: 'container', containerId: container.getId() },
    startedAt: new Date().toISOString(),
  };
}

export async function containerRunning(containerId: string): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const client = await getContainerRuntimeClient();
    const inspected = await client.container.inspect(client.container.getById(containerId));
    return inspected.State.Running;
  } catch {
    return false;
  }
}

export async function removeContainer(containerId: string): Promise<void> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  const container = client.container.getById(containerId);
  await client.container.stop(container, { timeout: 10 }).catch(() => undefined);
  await client.container.remove(container, { removeVolumes: true }).catch(() => undefined);
}

/** SeaweedFS's own image, at the release the Go build reports (`weed version`). */
const SEAWEEDFS_IMAGE = 'chrislusf/seaweedfs:4.53';

export async function startS3Container(identities: string, extraEnv: Record<string, string>): Promise<RunningService> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(SEAWEEDFS_IMAGE)
    .withCopyContentToContainer([{ content: identities, target: '/etc/lanner/identities.json' }])
    .withCommand(['server', '-s3', '-s3.config=/etc/lanner/identities.json', '-s3.iam=false', '-master.volumeSizeLimitMB=256'])
    .withExposedPorts(8333)
    .withWaitStrategy(Wait.forListeningPorts())
    .withStartupTimeout(120_000)
    .start();
  return {
    source: 'docker',
    connection: `http://${container.getHost()}:${container.getMappedPort(8333)}`,
    extraEnv,
    handle: { kind: 'container', containerId: container.getId() },
    startedAt: new Date().toISOString(),
  };
}
