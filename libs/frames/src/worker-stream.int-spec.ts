// A worker (this test process) and a controller (a child process running
// testing/worker-controller.fixture.ts) talk over a real gRPC bidi stream on
// loopback, using only the generated contract and this library's helpers.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import * as grpc from '@grpc/grpc-js';
import {
  ErrorCode,
  frameSizeChannelOptions,
  JobState,
  LogLevel,
  MAX_FRAME_BYTES,
  millisFromDuration,
  PROTOCOL_VERSION,
  SubscriptionMode,
  WorkerControllerServiceClient,
  type ControllerFrame,
  type WorkerFrame,
} from './index';

const workspaceRoot = path.resolve(__dirname, '..', '..', '..');
const fixturePath = path.join(__dirname, 'testing', 'worker-controller.fixture.ts');

interface ControllerProcess {
  address: string;
  /** Resolves with the JSON after the first stdout line starting with `${prefix} `. */
  nextLine(prefix: string): Promise<unknown>;
  stop(): Promise<void>;
}

async function startControllerProcess(): Promise<ControllerProcess> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-r', '@swc-node/register', fixturePath], {
    cwd: workspaceRoot,
    env: { ...process.env, SWC_NODE_PROJECT: path.join(workspaceRoot, 'tsconfig.base.json') },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    waiters.splice(0).forEach((wake) => wake());
  });
  const nextRawLine = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const index = lines.findIndex((line) => line.startsWith(`${prefix} `));
        if (index >= 0) return resolve(lines.splice(index, 1)[0].slice(prefix.length + 1));
        if (child.exitCode !== null) return reject(new Error(`the controller process exited (${child.exitCode}): ${stderr}`));
        waiters.push(look);
      };
      child.once('exit', () => waiters.splice(0).forEach((wake) => wake()));
      look();
    });

  const port = await nextRawLine('LISTENING');
  return {
    address: `127.0.0.1:${port}`,
    nextLine: async (prefix) => JSON.parse(await nextRawLine(prefix)) as unknown,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

type ControllerFramePayload = NonNullable<ControllerFrame['frame']>;
type ControllerFrameKind = ControllerFramePayload['$case'];
type ControllerFrameValue<C extends ControllerFrameKind> = Extract<ControllerFramePayload, { $case: C }>['value'];

/** Reads a worker's stream one frame at a time, and its final gRPC status. */
class WorkerStreamProbe {
  readonly status: Promise<grpc.StatusObject>;
  private readonly received: ControllerFrame[] = [];
  private readonly waiters: Array<() => void> = [];
  private ended = false;

  constructor(readonly call: grpc.ClientDuplexStream<WorkerFrame, ControllerFrame>) {
    call.on('data', (frame: ControllerFrame) => {
      this.received.push(frame);
      this.wake();
    });
    call.on('error', () => undefined); // reported through `status`
    this.status = new Promise((resolve) =>
      call.on('status', (status: grpc.StatusObject) => {
        this.ended = true;
        this.wake();
        resolve(status);
      }),
    );
  }

  send(frame: WorkerFrame['frame']): void {
    this.call.write({ frame });
  }

  async next<C extends ControllerFrameKind>(kind: C): Promise<ControllerFrameValue<C>> {
    while (this.received.length === 0) {
      if (this.ended) throw new Error(`the stream ended before a ${kind} frame arrived`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    const frame = this.received.shift()?.frame;
    if (frame?.$case !== kind) throw new Error(`expected a ${kind} frame, got ${frame?.$case ?? 'an empty frame'}`);
    // The $case check above is what makes this narrowing sound; TypeScript cannot narrow on a generic.
    return frame.value as ControllerFrameValue<C>;
  }

  private wake(): void {
    this.waiters.splice(0).forEach((wake) => wake());
  }
}

describe('a worker stream between two processes', () => {
  let controller: ControllerProcess;
  const clients: WorkerControllerServiceClient[] = [];

  function connect(channelOptions: Partial<grpc.ClientOptions> = frameSizeChannelOptions()): WorkerStreamProbe {
    const client = new WorkerControllerServiceClient(controller.address, grpc.credentials.createInsecure(), channelOptions);
    clients.push(client);
    return new WorkerStreamProbe(client.connect());
  }

  beforeAll(async () => {
    controller = await startControllerProcess();
  });

  afterAll(async () => {
    clients.forEach((client) => client.close());
    await controller?.stop();
  });

  it('runs a job end to end: hello, welcome, credit, job, started, result relayed back', async () => {
    const worker = connect();

    worker.send({
      $case: 'hello',
      value: {
        protocolVersion: { ...PROTOCOL_VERSION },
        workerName: 'it',
        slots: 2,
        labels: { zone: 'a' },
        workerVersion: '0.1.0',
        runningJobs: [],
      },
    });
    const welcome = await worker.next('welcome');
    expect(welcome).toMatchObject({
      workerId: 'w-it',
      workerGroupId: 'default',
      subscriptions: [{ queueId: 'default', reservedPercent: 50, mode: SubscriptionMode.STRICT }],
      protocolVersion: PROTOCOL_VERSION,
      maxFrameBytes: MAX_FRAME_BYTES,
    });
    expect(millisFromDuration(welcome.heartbeatInterval)).toBe(3000);

    worker.send({ $case: 'credit', value: { slots: 1 } });
    const job = await worker.next('job');
    expect(job).toMatchObject({
      taskRunId: 'tr-1',
      attempt: 1,
      executionId: 'ex-1',
      queueId: 'default',
      correlationId: 'corr-fixture',
    });
    expect(JSON.parse(job.taskDefinitionJson)).toEqual({
      id: 'hello',
      type: 'io.kestra.plugin.core.log.Log',
      message: 'Hello, Lanner',
    });
    expect(millisFromDuration(job.timeout)).toBe(600_000);
    expect(job.deadline).toEqual(new Date('2030-01-01T00:00:00.000Z'));

    const startedAt = new Date('2026-11-30T01:00:00.000Z');
    const endedAt = new Date('2026-11-30T01:00:01.500Z');
    worker.send({ $case: 'jobStarted', value: { taskRunId: job.taskRunId, attempt: job.attempt, startedAt } });
    worker.send({
      $case: 'jobResult',
      value: {
        taskRunId: job.taskRunId,
        attempt: job.attempt,
        state: JobState.SUCCESS,
        outputsJson: JSON.stringify({ greeting: 'Hello, Lanner' }),
        errorMessage: '',
        cacheHit: false,
        deadlinePassed: false,
        credit: 0,
        startedAt,
        endedAt,
      },
    });

    // The controller process decoded every field of the result...
    await expect(controller.nextLine('RESULT')).resolves.toEqual({
      taskRunId: 'tr-1',
      attempt: 1,
      state: JobState.SUCCESS,
      outputs: { greeting: 'Hello, Lanner' },
      errorMessage: '',
      cacheHit: false,
      startedAt: startedAt.toISOString(),
      endedAt: endedAt.toISOString(),
    });
    // ...and said so on the stream before ending it cleanly.
    const reconnect = await worker.next('reconnect');
    expect(reconnect.reason).toBe('job tr-1:1 recorded with outputs {"greeting":"Hello, Lanner"}');
    expect(millisFromDuration(reconnect.delay)).toBe(0);
    worker.call.end();
    expect((await worker.status).code).toBe(grpc.status.OK);
  });

  it('refuses a worker speaking another major protocol version, with an error frame and a status', async () => {
    const worker = connect();

    worker.send({
      $case: 'hello',
      value: {
        protocolVersion: { major: PROTOCOL_VERSION.major + 1, minor: 0 },
        workerName: 'future',
        slots: 1,
        labels: {},
        workerVersion: '9.0.0',
        runningJobs: [],
      },
    });

    const refusal = await worker.next('error');
    expect(refusal.code).toBe(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION);
    expect(refusal.fatal).toBe(true);
    expect(refusal.message).toBe(
      'protocol 2.0 is incompatible with protocol 1.2 spoken here (major versions differ); upgrade this side so workers and controllers share major version 2',
    );
    const status = await worker.status;
    expect(status.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(status.details).toBe(refusal.message);
  });

  it('refuses a stream that does not start with hello', async () => {
    const worker = connect();

    worker.send({ $case: 'credit', value: { slots: 4 } });

    const refusal = await worker.next('error');
    expect(refusal).toEqual({ code: ErrorCode.INVALID_FRAME, message: 'the first frame must be hello, got credit', fatal: true });
    expect((await worker.status).code).toBe(grpc.status.FAILED_PRECONDITION);
  });

  it('has the controller refuse a frame over the max frame size', async () => {
    // A worker without a send limit, as a misbehaving or misconfigured one would be.
    const worker = connect({ 'grpc.max_send_message_length': -1 });
    worker.send({
      $case: 'hello',
      value: {
        protocolVersion: { ...PROTOCOL_VERSION },
        workerName: 'big',
        slots: 1,
        labels: {},
        workerVersion: '0.1.0',
        runningJobs: [],
      },
    });
    await worker.next('welcome');

    worker.send({ $case: 'logBatch', value: { entries: [oversizedLogEntry()] } });

    const status = await worker.status;
    expect(status.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(status.details).toMatch(/^Received message larger than max \(\d+ vs \d+\)$/);
  });

  it('has a worker using the shared limit refuse to send a frame over it', async () => {
    const worker = connect();

    worker.send({ $case: 'logBatch', value: { entries: [oversizedLogEntry()] } });

    const status = await worker.status;
    expect(status.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(status.details).toBe(`Attempted to send message with a size larger than ${MAX_FRAME_BYTES}`);
  });
});

function oversizedLogEntry() {
  return {
    taskRunId: 'tr-1',
    attempt: 1,
    level: LogLevel.INFO,
    timestamp: new Date('2026-11-30T01:00:00.000Z'),
    message: 'x'.repeat(MAX_FRAME_BYTES + 1),
  };
}
