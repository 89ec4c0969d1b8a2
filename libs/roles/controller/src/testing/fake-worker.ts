import * as grpc from '@grpc/grpc-js';
import {
  frameSizeChannelOptions,
  jobMessageId,
  PROTOCOL_VERSION,
  WorkerControllerServiceClient,
  type ControllerFrame,
  type Job,
  type JobRef,
  type Welcome,
  type WorkerFrame,
} from '@lanner/frames';
import { systemClock } from '../lib/system-clock';
import { eventually, type EventuallyOptions } from './spec-helpers';

// A worker as the controller's integration specs play it: a grpc-js client on
// the generated definitions holding one `Connect` stream, heartbeating like a
// real worker. Each spec adds the steps it needs (hello, start, complete...).

type FrameCase = NonNullable<ControllerFrame['frame']>;
export type FrameValue<C> = Extract<FrameCase, { $case: C }> extends { value: infer V } ? V : never;

export interface FakeWorkerOptions {
  /** Sent with the stream: e.g. `authorization: Bearer <token>`. */
  readonly metadata?: grpc.Metadata;
  /** TLS credentials (then it dials `localhost`, the name in the spec's certificate); plaintext otherwise. */
  readonly credentials?: grpc.ChannelCredentials;
  /** Jobs the worker already runs when it connects (a reconnecting worker). */
  readonly runningJobs?: readonly JobRef[];
  /** How often it heartbeats. */
  readonly heartbeatMs: number;
  /** How long `welcome()` waits, and how often it looks. */
  readonly wait: EventuallyOptions;
}

export interface HelloOptions {
  readonly workerName: string;
  readonly slots: number;
  readonly labels?: Record<string, string>;
  readonly protocolVersion?: { major: number; minor: number };
  readonly runningJobs?: JobRef[];
}

export class FakeWorker {
  readonly frames: ControllerFrame[] = [];
  readonly status: Promise<grpc.StatusObject>;
  /** Jobs started and without a result: what a real worker lists in its heartbeats. */
  readonly running = new Map<string, JobRef>();
  private readonly client: WorkerControllerServiceClient;
  private readonly call: grpc.ClientDuplexStream<WorkerFrame, ControllerFrame>;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly wait: EventuallyOptions;

  constructor(port: number, options: FakeWorkerOptions) {
    this.wait = options.wait;
    const address = options.credentials ? `localhost:${port}` : `127.0.0.1:${port}`;
    this.client = new WorkerControllerServiceClient(
      address,
      options.credentials ?? grpc.credentials.createInsecure(),
      frameSizeChannelOptions(),
    );
    this.call = this.client.connect(options.metadata ?? new grpc.Metadata());
    for (const ref of options.runningJobs ?? []) this.running.set(jobMessageId(ref.taskRunId, ref.attempt), ref);
    this.call.on('data', (frame: ControllerFrame) => this.frames.push(frame));
    this.call.on('error', () => undefined); // the final status is what the spec checks
    this.status = new Promise((resolve) => this.call.on('status', resolve));
    // A real worker heartbeats; without it a long test would look like a silent worker.
    this.heartbeat = setInterval(
      () => this.send({ frame: { $case: 'heartbeat', value: { sentAt: systemClock.now(), runningJobs: this.runningJobs() } } }),
      options.heartbeatMs,
    );
  }

  /** What the heartbeats list as running: the jobs started and without a result. */
  protected runningJobs(): JobRef[] {
    return [...this.running.values()];
  }

  /** Sends a frame while the stream is open; a job start or result also updates what the worker runs. */
  send(frame: WorkerFrame): void {
    const sent = frame.frame;
    if (sent?.$case === 'jobStarted')
      this.running.set(jobMessageId(sent.value.taskRunId, sent.value.attempt), {
        taskRunId: sent.value.taskRunId,
        attempt: sent.value.attempt,
      });
    if (sent?.$case === 'jobResult') this.running.delete(jobMessageId(sent.value.taskRunId, sent.value.attempt));
    if (!this.call.writableEnded && !this.call.destroyed) this.call.write(frame);
  }

  sendHello(hello: HelloOptions): void {
    this.send({
      frame: {
        $case: 'hello',
        value: {
          protocolVersion: hello.protocolVersion ?? { ...PROTOCOL_VERSION },
          workerName: hello.workerName,
          slots: hello.slots,
          labels: hello.labels ?? {},
          workerVersion: 'spec',
          runningJobs: hello.runningJobs ?? [],
        },
      },
    });
  }

  credit(slots: number): void {
    this.send({ frame: { $case: 'credit', value: { slots } } });
  }

  async welcome(): Promise<Welcome> {
    return eventually(
      'a welcome',
      () => {
        const frame = this.frames.find((candidate) => candidate.frame?.$case === 'welcome')?.frame;
        return frame?.$case === 'welcome' ? frame.value : undefined;
      },
      this.wait,
    );
  }

  /** The first frame of this kind the controller sent, if any. */
  frameOf<C extends FrameCase['$case']>(kind: C): FrameValue<C> | undefined {
    const frame = this.frames.find((candidate) => candidate.frame?.$case === kind)?.frame;
    return frame?.$case === kind ? ((frame as { value: unknown }).value as FrameValue<C>) : undefined;
  }

  jobs(): Job[] {
    return this.frames.flatMap((candidate) => (candidate.frame?.$case === 'job' ? [candidate.frame.value] : []));
  }

  /** Half-closes like a worker that stops. */
  end(): void {
    clearInterval(this.heartbeat);
    this.call.end();
  }

  /** Drops the stream like a worker that dies. */
  cancel(): void {
    clearInterval(this.heartbeat);
    this.call.cancel();
  }

  async closed(): Promise<grpc.StatusObject> {
    const status = await this.status;
    clearInterval(this.heartbeat);
    this.client.close();
    return status;
  }
}
