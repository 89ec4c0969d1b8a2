/**
 * Test support, not production code: a small controller peer that serves
 * WorkerControllerService.Connect from the generated definitions, so the
 * worker (a separate process) talks real gRPC to it. It welcomes any worker,
 * keeps the credit the worker granted, sends jobs only against that credit,
 * and records every frame it receives, in order.
 */
import * as grpc from '@grpc/grpc-js';
import {
  checkPeerProtocolVersion,
  durationFromMillis,
  frameSizeChannelOptions,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  SubscriptionMode,
  WorkerControllerServiceService,
  type ControllerFrame,
  type Job,
  type WorkerControllerServiceServer,
  type WorkerFrame,
} from '@lanner/frames';

type WorkerStream = grpc.ServerDuplexStream<WorkerFrame, ControllerFrame>;
export type WorkerFramePayload = NonNullable<WorkerFrame['frame']>;
export type WorkerFrameOf<C extends WorkerFramePayload['$case']> = Extract<WorkerFramePayload, { $case: C }>['value'];

export interface RecordedFrame {
  readonly stream: number;
  readonly frame: WorkerFramePayload;
}

export class FakeController {
  readonly frames: RecordedFrame[] = [];
  private server: grpc.Server | undefined;
  private streams = 0;
  private current: { call: WorkerStream; id: number } | undefined;
  private credit = 0;
  /** Jobs waiting for credit, sent in order as the worker grants it. */
  private readonly waitingJobs: Job[] = [];
  private readonly watchers: Array<() => void> = [];

  private constructor(public port: number) {}

  static async start(port = 0): Promise<FakeController> {
    const controller = new FakeController(port);
    await controller.listen();
    return controller;
  }

  async listen(): Promise<void> {
    const server = new grpc.Server(frameSizeChannelOptions());
    const implementation: WorkerControllerServiceServer = { connect: (call) => this.serve(call) };
    server.addService(WorkerControllerServiceService, implementation);
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${this.port}`, grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
    );
    this.server = server;
  }

  /** Drops every stream and stops listening, as a crashed controller would. */
  stop(): void {
    this.server?.forceShutdown();
    this.server = undefined;
    this.current = undefined;
    this.credit = 0;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Queues a job; it goes out as soon as the worker has granted credit for it. */
  offer(job: Job): void {
    this.waitingJobs.push(job);
    this.sendAgainstCredit();
  }

  /** Sends a job whatever the credit (a misbehaving controller). */
  forceSend(job: Job): void {
    this.current?.call.write({ frame: { $case: 'job', value: job } });
  }

  kill(taskRunId: string, attempt: number, reason: string): void {
    this.current?.call.write({ frame: { $case: 'kill', value: { taskRunId, attempt, reason } } });
  }

  /** Frames of one kind received so far (optionally only on one stream). */
  received<C extends WorkerFramePayload['$case']>(kind: C, stream?: number): WorkerFrameOf<C>[] {
    return this.frames
      .filter((recorded) => recorded.frame.$case === kind && (stream === undefined || recorded.stream === stream))
      .map((recorded) => recorded.frame.value as WorkerFrameOf<C>);
  }

  /** Waits until `found` returns a value for the frames received so far. */
  waitFor<T>(what: string, found: (frames: readonly RecordedFrame[]) => T | undefined, timeoutMs = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; frames: ${this.describe()}`)), timeoutMs);
      const look = () => {
        const value = found(this.frames);
        if (value === undefined) return void this.watchers.push(look);
        clearTimeout(timer);
        resolve(value);
      };
      look();
    });
  }

  /** Waits for the first frame of `kind` matching `match`, received after `after` frames. */
  waitForFrame<C extends WorkerFramePayload['$case']>(
    kind: C,
    match: (value: WorkerFrameOf<C>) => boolean = () => true,
    after = 0,
  ): Promise<WorkerFrameOf<C>> {
    return this.waitFor(`a ${kind} frame`, (frames) => {
      const hit = frames.slice(after).find((recorded) => recorded.frame.$case === kind && match(recorded.frame.value as WorkerFrameOf<C>));
      return hit?.frame.value as WorkerFrameOf<C> | undefined;
    });
  }

  /** Credit the worker granted on the current stream that no job has used yet. */
  get creditLeft(): number {
    return this.credit;
  }

  get waitingJobCount(): number {
    return this.waitingJobs.length;
  }

  get streamCount(): number {
    return this.streams;
  }

  private describe(): string {
    return this.frames.map((recorded) => `${recorded.stream}:${recorded.frame.$case}`).join(' ');
  }

  private serve(call: WorkerStream): void {
    const id = ++this.streams;
    let greeted = false;
    call.on('data', (frame: WorkerFrame) => {
      const payload = frame.frame;
      if (payload === undefined) return;
      this.frames.push({ stream: id, frame: payload });
      if (!greeted && payload.$case === 'hello' && checkPeerProtocolVersion(payload.value.protocolVersion).compatible) {
        greeted = true;
        this.current = { call, id };
        this.credit = 0;
        call.write({
          frame: {
            $case: 'welcome',
            value: {
              workerId: `worker-${payload.value.workerName}`,
              workerGroupId: 'default',
              subscriptions: [{ queueId: 'default', reservedPercent: 0, mode: SubscriptionMode.STRICT }],
              heartbeatInterval: durationFromMillis(1000),
              protocolVersion: { ...PROTOCOL_VERSION },
              maxFrameBytes: MAX_FRAME_BYTES,
              controllerId: 'fake-controller',
            },
          },
        });
      }
      if (payload.$case === 'credit' && this.current?.id === id) {
        this.credit += payload.value.slots;
        this.sendAgainstCredit();
      }
      this.watchers.splice(0).forEach((look) => look());
    });
    // The worker half-closes when it shuts down: end our side too so its final flush completes.
    call.on('end', () => call.end());
    call.on('error', () => undefined); // a worker that goes away is not a test failure
  }

  private sendAgainstCredit(): void {
    while (this.current && this.credit > 0 && this.waitingJobs.length > 0) {
      const job = this.waitingJobs.shift() as Job;
      this.credit -= 1;
      this.current.call.write({ frame: { $case: 'job', value: job } });
    }
  }
}

let jobCounter = 0;

/** A job for `definition` (the rendered task, with its `kind`). */
export function jobFor(definition: Record<string, unknown>, extra: Partial<Job> = {}): Job {
  jobCounter += 1;
  return {
    taskRunId: `tr-${process.pid}-${jobCounter}`,
    attempt: 1,
    executionId: `ex-${process.pid}-${jobCounter}`,
    queueId: 'default',
    taskType: String(definition['type']),
    taskDefinitionJson: JSON.stringify({ disabled: false, allowFailure: false, allowWarning: false, ...definition }),
    timeout: undefined,
    deadline: undefined,
    correlationId: `corr-${jobCounter}`,
    tenantId: 'main',
    namespace: 'company.team',
    flowId: 'worker-spec',
    taskId: String(definition['id']),
    ...extra,
  };
}
