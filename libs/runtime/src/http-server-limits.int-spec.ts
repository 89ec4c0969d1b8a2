import { connect, type Socket } from 'node:net';
import { pause } from '@lanner/testing';
import { freePort, requiredEnv, startLanner, stopLanner, type LannerProcess } from './testing/lanner-process';

// The HTTP server limits of every role, on a real `lanner server indexer`
// process (the smallest server role) against the real Kafka and PostgreSQL,
// observed through raw TCP connections as a slow or greedy client makes them.

const LIMITS = {
  LANNER_HTTP_HEADERS_TIMEOUT_MS: '1000',
  LANNER_HTTP_REQUEST_TIMEOUT_MS: '2000',
  LANNER_HTTP_KEEP_ALIVE_TIMEOUT_MS: '3000',
  LANNER_HTTP_MAX_CONNECTIONS: '3',
};
/** Far below Node's own defaults (60 s for headers, 300 s for a request), far above the limits set here. */
const GENEROUS_MS = 15_000;

let lanner: LannerProcess;
let port: number;
const sockets: Socket[] = [];

interface Ended {
  readonly received: string;
  readonly closedByServer: boolean;
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** What the server sent until it closed the connection, or until GENEROUS_MS passed (then closedByServer is false). */
function untilClosed(socket: Socket): Promise<Ended> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const timer = setTimeout(() => resolve({ received, closedByServer: false }), GENEROUS_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ received, closedByServer: true });
    });
    socket.on('error', () => undefined);
  });
}

async function liveStatus(): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/health/live`);
  await response.text();
  return response.status;
}

beforeAll(async () => {
  port = await freePort();
  lanner = startLanner('indexer', {
    DATABASE_URL: requiredEnv('DATABASE_URL'),
    KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
    LANNER_HTTP_PORT: String(port),
    LANNER_KAFKA_NAMESPACE: `http-limits-spec-${port}.`,
    ...LIMITS,
  });
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (lanner.child.exitCode !== null) throw new Error(`the indexer exited:\n${lanner.output()}`);
    if ((await liveStatus().catch(() => 0)) === 200) break;
    if (Date.now() > deadline) throw new Error(`the indexer did not become live:\n${lanner.output()}`);
    await pause(250);
  }
}, 60_000);

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

afterAll(async () => {
  if (lanner !== undefined) await stopLanner(lanner);
}, 30_000);

describe('HTTP server limits (LANNER_HTTP_*)', () => {
  it('answers 408 and closes a connection whose headers do not arrive in time', async () => {
    const socket = await open();
    socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n');
    const ended = await untilClosed(socket);
    expect(ended.closedByServer).toBe(true);
    expect(ended.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('answers 408 and closes a connection whose body does not arrive in time', async () => {
    const socket = await open();
    socket.write(
      'POST /health/live HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    const ended = await untilClosed(socket);
    expect(ended.closedByServer).toBe(true);
    expect(ended.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('tells keep-alive clients its idle timeout', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/health/live`, { headers: { connection: 'keep-alive' } });
    await response.text();
    expect(response.headers.get('keep-alive')).toBe('timeout=3');
  });

  it('closes connections beyond the cap at once and serves again when they are gone', async () => {
    const held = [await open(), await open(), await open()];
    // Let the server accept the three before the fourth arrives.
    await pause(200);
    const extra = await open();
    extra.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const ended = await untilClosed(extra);
    expect(ended).toEqual({ received: '', closedByServer: true });
    for (const socket of held) socket.destroy();
    await pause(200);
    expect(await liveStatus()).toBe(200);
  });
});
