/**
 * Test support, not production code: a small controller peer that serves
 * WorkerControllerService.Connect and WorkerAuthService from the generated
 * definitions, so the worker (a separate process) talks real gRPC to it,
 * plaintext or TLS (optionally asking for a client certificate). It welcomes
 * any worker (or, with `auth.requireToken`, only one with a valid access token
 * it issued), keeps the credit the worker granted, sends jobs only against
 * that credit, and records every frame, every Connect's `authorization`
 * metadata and client certificate, and every Register and Refresh.
 */
import { randomBytes } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import jwt from 'jsonwebtoken';
import {
  checkPeerProtocolVersion,
  durationFromMillis,
  ErrorCode,
  frameSizeChannelOptions,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  SubscriptionMode,
  WorkerAuthServiceService,
  WorkerControllerServiceService,
  type ControllerFrame,
  type Credentials,
  type Job,
  type RegisterRequest,
  type WorkerAuthServiceServer,
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

export interface FakeControllerOptions {
  /** Serve TLS with this certificate; with `clientCa` and `checkClientCertificate`, require a client certificate. */
  readonly tls?: {
    readonly cert: Buffer;
    readonly key: Buffer;
    readonly clientCa?: Buffer;
    readonly checkClientCertificate?: boolean;
  };
  readonly auth?: {
    /** Registration tokens Register accepts; each registration gets a new worker id in group `gpu-workers`. */
    readonly registrationTokens: readonly string[];
    readonly accessTtlMs?: number;
    readonly refreshTtlMs?: number;
    /** Refuse a Connect without a valid access token this controller issued (UNAUTHENTICATED). */
    readonly requireToken?: boolean;
  };
  /** Welcome workers as a controller of this protocol minor (an older one, to check compatibility). */
  readonly protocolMinor?: number;
}

/** One Connect call, as the controller saw it open. */
export interface RecordedConnect {
  readonly stream: number;
  readonly authorization: string | undefined;
  readonly peerCertificate: PeerCertificate | undefined;
  readonly refused: boolean;
}

export const FAKE_GROUP_ID = 'gpu-workers';

/**
 * Every fake controller of a test process behaves as one cluster: the same
 * signing key and the same refresh-token store, so a token issued by one is
 * accepted by another, as with real controllers sharing their key and database.
 */
const clusterSigningKey = randomBytes(32);
const clusterRefreshTokens = new Map<string, { workerId: string; expiresAt: number }>();

export class FakeController {
  readonly frames: RecordedFrame[] = [];
  readonly connects: RecordedConnect[] = [];
  readonly registrations: RegisterRequest[] = [];
  /** Refresh tokens presented to Refresh, in order. */
  readonly refreshes: string[] = [];
  /** Every Credentials answer, in order. */
  readonly issued: Credentials[] = [];
  /** When set, Refresh answers UNAUTHENTICATED (a revoked or reused token family). */
  refuseRefresh = false;
  private server: grpc.Server | undefined;
  private streams = 0;
  private current: { call: WorkerStream; id: number } | undefined;
  private credit = 0;
  /** Jobs waiting for credit, sent in order as the worker grants it. */
  private readonly waitingJobs: Job[] = [];
  private readonly watchers: Array<() => void> = [];
  private signingKey = clusterSigningKey;
  private readonly liveRefreshTokens = clusterRefreshTokens;
  private workerCounter = 0;

  private constructor(
    public port: number,
    private readonly options: FakeControllerOptions,
  ) {}

  static async start(port = 0, options: FakeControllerOptions = {}): Promise<FakeController> {
    const controller = new FakeController(port, options);
    await controller.listen();
    return controller;
  }

  async listen(): Promise<void> {
    const server = new grpc.Server(frameSizeChannelOptions());
    const implementation: WorkerControllerServiceServer = { connect: (call) => this.serve(call) };
    server.addService(WorkerControllerServiceService, implementation);
    const auth: WorkerAuthServiceServer = {
      register: (call, done) => this.register(call.request, done),
      refresh: (call, done) => this.refresh(call.request.refreshToken, done),
    };
    server.addService(WorkerAuthServiceService, auth);
    const tls = this.options.tls;
    const credentials = tls
      ? grpc.ServerCredentials.createSsl(
          tls.clientCa ?? null,
          [{ cert_chain: tls.cert, private_key: tls.key }],
          tls.checkClientCertificate ?? false,
        )
      : grpc.ServerCredentials.createInsecure();
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${this.port}`, credentials, (error, port) => (error ? reject(error) : resolve(port))),
    );
    this.server = server;
  }

  /** Ends the current stream the way a recycling controller does: a Reconnect frame, then the worker half-closes. */
  reconnect(reason: string, delayMs = 0): void {
    this.current?.call.write({ frame: { $case: 'reconnect', value: { reason, delay: durationFromMillis(delayMs) } } });
  }

  /**
   * This controller signs and checks access tokens with a new key from now on,
   * as after a signing-key rotation: every access token issued before is
   * refused at Connect, while the refresh tokens (store rows) stay valid.
   */
  rotateSigningKey(): void {
    this.signingKey = randomBytes(32);
  }

  /** The access token this controller issued last. */
  get lastAccessToken(): string | undefined {
    return this.issued.at(-1)?.accessToken;
  }

  private issue(workerId: string): Credentials {
    const now = Date.now();
    const accessTtlMs = this.options.auth?.accessTtlMs ?? 300_000;
    const refreshTtlMs = this.options.auth?.refreshTtlMs ?? 3_600_000;
    const accessToken = jwt.sign({ sub: workerId, grp: FAKE_GROUP_ID, jti: randomBytes(8).toString('hex') }, this.signingKey, {
      algorithm: 'HS256',
      expiresIn: Math.ceil(accessTtlMs / 1000),
    });
    const refreshToken = randomBytes(32).toString('base64url');
    this.liveRefreshTokens.set(refreshToken, { workerId, expiresAt: now + refreshTtlMs });
    const credentials: Credentials = {
      accessToken,
      accessExpiresAt: new Date(now + accessTtlMs),
      refreshToken,
      refreshExpiresAt: new Date(now + refreshTtlMs),
      workerId,
      workerGroupId: FAKE_GROUP_ID,
    };
    this.issued.push(credentials);
    return credentials;
  }

  private register(request: RegisterRequest, done: grpc.sendUnaryData<Credentials>): void {
    this.registrations.push(request);
    this.notify();
    if (!this.options.auth?.registrationTokens.includes(request.registrationToken)) {
      return done({ code: grpc.status.UNAUTHENTICATED, details: 'unknown, revoked or expired registration token' });
    }
    this.workerCounter += 1;
    done(null, this.issue(`w-${this.port}-${this.workerCounter}`));
  }

  private refresh(refreshToken: string, done: grpc.sendUnaryData<Credentials>): void {
    this.refreshes.push(refreshToken);
    this.notify();
    const live = this.liveRefreshTokens.get(refreshToken);
    if (this.refuseRefresh || !live || live.expiresAt <= Date.now()) {
      return done({ code: grpc.status.UNAUTHENTICATED, details: 'unknown, revoked or expired refresh token' });
    }
    this.liveRefreshTokens.delete(refreshToken); // rotating: single use
    done(null, this.issue(live.workerId));
  }

  /** The worker id of a valid access token this controller issued, from an `authorization` value. */
  private workerIdOf(authorization: string | undefined): string | undefined {
    const token = authorization?.match(/^Bearer (.+)$/)?.[1];
    if (!token) return undefined;
    try {
      const claims = jwt.verify(token, this.signingKey, { algorithms: ['HS256'] });
      return typeof claims === 'object' && typeof claims.sub === 'string' ? claims.sub : undefined;
    } catch {
      return undefined;
    }
  }

  private notify(): void {
    this.watchers.splice(0).forEach((look) => look());
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

  /** Waits until `found` returns a value; it is asked again after every frame, Connect, Register and Refresh. */
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
      const hit = frames
        .slice(after)
        .find((recorded) => recorded.frame.$case === kind && match(recorded.frame.value as WorkerFrameOf<C>));
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
    const [value] = call.metadata.get('authorization');
    const authorization = typeof value === 'string' ? value : undefined;
    const workerId = this.workerIdOf(authorization);
    const refused = this.options.auth?.requireToken === true && workerId === undefined;
    this.connects.push({ stream: id, authorization, peerCertificate: call.getAuthContext()?.sslPeerCertificate, refused });
    this.notify();
    if (refused) {
      // As a real controller refuses: a fatal Error frame, then the gRPC status.
      const message = 'missing, invalid or expired access token';
      call.write({ frame: { $case: 'error', value: { code: ErrorCode.UNAUTHENTICATED, message, fatal: true } } });
      call.emit('error', { code: grpc.status.UNAUTHENTICATED, details: message });
      return;
    }
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
              workerId: workerId ?? `worker-${payload.value.workerName}`,
              workerGroupId: workerId ? FAKE_GROUP_ID : 'default',
              subscriptions: [{ queueId: 'default', reservedPercent: 0, mode: SubscriptionMode.STRICT }],
              heartbeatInterval: durationFromMillis(1000),
              protocolVersion: { ...PROTOCOL_VERSION, minor: this.options.protocolMinor ?? PROTOCOL_VERSION.minor },
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
      // Since 1.2 a result carries the credit of the slot it freed (an older controller ignores it).
      if (payload.$case === 'jobResult' && this.current?.id === id && (this.options.protocolMinor ?? 2) >= 2) {
        this.credit += payload.value.credit;
        this.sendAgainstCredit();
      }
      this.notify();
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
