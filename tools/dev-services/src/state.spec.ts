import { parseServiceState, serializeServiceState, serviceEnvOf, type ServiceState } from './state';

const running: ServiceState = {
  version: 1,
  services: {
    kafka: {
      source: 'local',
      connection: '127.0.0.1:40001',
      handle: { kind: 'process', pid: 4242, commandMarker: '/w/.dev-services/kafka/server.properties', stopSignal: 'SIGTERM' },
      logFile: '/w/.dev-services/kafka/kafka.log',
      startedAt: '2026-01-01T00:00:00.000Z',
    },
    postgres: {
      source: 'docker',
      connection: 'postgresql://lanner:lanner@127.0.0.1:40003/lanner',
      handle: { kind: 'container', containerId: 'abc123' },
      startedAt: '2026-01-01T00:00:01.000Z',
    },
  },
};

describe('the state file', () => {
  it('reads back exactly what was written', () => {
    expect(parseServiceState(serializeServiceState(running))).toEqual(running);
  });

  it('gives the connection env of what is running', () => {
    expect(serviceEnvOf(running)).toEqual({
      KAFKA_BROKERS: '127.0.0.1:40001',
      DATABASE_URL: 'postgresql://lanner:lanner@127.0.0.1:40003/lanner',
    });
  });

  it('gives the S3 endpoint with the variables recorded beside it', () => {
    const withS3: ServiceState = {
      version: 1,
      services: {
        s3: {
          source: 'local',
          connection: 'http://127.0.0.1:40005',
          extraEnv: { AWS_ACCESS_KEY_ID: 'dev', AWS_SECRET_ACCESS_KEY: 'dev-secret', AWS_REGION: 'us-east-1', S3_BUCKET: 'dev' },
          handle: { kind: 'process', pid: 4343, commandMarker: '/w/.dev-services/s3/data', stopSignal: 'SIGTERM' },
          startedAt: '2026-01-01T00:00:02.000Z',
        },
      },
    };
    expect(parseServiceState(serializeServiceState(withS3))).toEqual(withS3);
    expect(serviceEnvOf(withS3)).toEqual({
      S3_ENDPOINT: 'http://127.0.0.1:40005',
      AWS_ACCESS_KEY_ID: 'dev',
      AWS_SECRET_ACCESS_KEY: 'dev-secret',
      AWS_REGION: 'us-east-1',
      S3_BUCKET: 'dev',
    });
  });

  it('gives only the variables of the services it records', () => {
    const onlyKafka: ServiceState = { version: 1, services: { kafka: running.services.kafka } };
    expect(serviceEnvOf(onlyKafka)).toEqual({ KAFKA_BROKERS: '127.0.0.1:40001' });
  });

  it.each([
    ['not JSON', '{ kafka'],
    ['an unknown version', JSON.stringify({ ...running, version: 2 })],
    ['a missing services map', JSON.stringify({ version: 1 })],
    [
      'a pid that is not a number',
      JSON.stringify({
        version: 1,
        services: {
          kafka: { ...running.services.kafka, handle: { kind: 'process', pid: '42', commandMarker: 'x', stopSignal: 'SIGTERM' } },
        },
      }),
    ],
    [
      'pid 1, which must never be signalled',
      JSON.stringify({
        version: 1,
        services: {
          kafka: { ...running.services.kafka, handle: { kind: 'process', pid: 1, commandMarker: 'x', stopSignal: 'SIGTERM' } },
        },
      }),
    ],
    [
      'an empty connection string',
      JSON.stringify({ version: 1, services: { postgres: { ...running.services.postgres, connection: '' } } }),
    ],
    [
      'extra variables that are not strings',
      JSON.stringify({ version: 1, services: { kafka: { ...running.services.kafka, extraEnv: { AWS_REGION: 1 } } } }),
    ],
  ])('is treated as absent when it holds %s', (_case, text) => {
    expect(parseServiceState(text)).toBeUndefined();
  });
});
