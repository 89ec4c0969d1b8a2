import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';

/** A topic only the readiness probe writes to; it proves the broker accepts produce requests. */
const PROBE_TOPIC = 'lanner.dev-services.ready';

/** True when the broker lists topics and accepts a produced message. */
export async function kafkaAnswers(brokers: string, timeoutMs = 5_000): Promise<boolean> {
  const kafka = new Kafka({
    clientId: 'lanner-dev-services',
    brokers: brokers.split(',').map((b) => b.trim()),
    connectionTimeout: timeoutMs,
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
    // The probe fails on purpose while the broker starts; its errors are not news.
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  try {
    await admin.connect();
    const topics = await admin.listTopics();
    if (!topics.includes(PROBE_TOPIC)) {
      await admin.createTopics({ topics: [{ topic: PROBE_TOPIC, numPartitions: 1 }], waitForLeaders: true });
    }
    await producer.connect();
    await producer.send({ topic: PROBE_TOPIC, messages: [{ value: 'ready' }] });
    return true;
  } catch {
    return false;
  } finally {
    await producer.disconnect().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

/** True when `SELECT 1` works on the given database. */
export async function postgresAnswers(connectionString: string, timeoutMs = 5_000): Promise<boolean> {
  const client = new Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  // A refused connection also emits 'error'; without a listener Node would crash.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates the database named in the URL (connecting to `postgres`) when it does not exist. */
export async function ensureDatabase(connectionString: string): Promise<void> {
  const url = new URL(connectionString);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database || database === 'postgres') return;
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface S3Access {
  readonly endpoint: string;
  /** Explicit keys (the local server's); absent: the SDK's default chain reads AWS_* itself. */
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  readonly region: string;
}

async function s3Client(access: S3Access, timeoutMs: number) {
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client({
    endpoint: access.endpoint,
    region: access.region,
    forcePathStyle: true,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs },
    ...(access.accessKeyId && access.secretAccessKey
      ? { credentials: { accessKeyId: access.accessKeyId, secretAccessKey: access.secretAccessKey } }
      : {}),
  });
}

/** True when the S3 endpoint answers a signed ListBuckets with the given credentials. */
export async function s3Answers(access: S3Access, timeoutMs = 5_000): Promise<boolean> {
  const { ListBucketsCommand } = await import('@aws-sdk/client-s3');
  const client = await s3Client(access, timeoutMs);
  try {
    await client.send(new ListBucketsCommand({}));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

/** Creates the bucket when it does not exist. */
export async function ensureBucket(access: S3Access, bucket: string): Promise<void> {
  const { CreateBucketCommand, HeadBucketCommand } = await import('@aws-sdk/client-s3');
  const client = await s3Client(access, 10_000);
  try {
    const found = await client.send(new HeadBucketCommand({ Bucket: bucket })).then(
      () => true,
      () => false,
    );
    if (!found) await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
}
