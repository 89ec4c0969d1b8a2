import * as grpc from '@grpc/grpc-js';
import {
  checkPeerProtocolVersion,
  ErrorCode,
  WORKER_INSTANCE_METADATA,
  WorkerControllerServiceClient,
  type ControllerFrame,
  type Hello,
  type Welcome,
  type WorkerFrame,
} from '@lanner/frames';
import type { Endpoint } from '@lanner/runtime';
import { describeFailure, endpointAddress, type ControllerChannel } from './controller-channel';

type ControllerFramePayload = NonNullable<ControllerFrame['frame']>;

export interface SessionHandlers {
  /** Every frame after Welcome. */
  onFrame(frame: ControllerFramePayload): void;
  /** The stream ended (once), with why, for logs, and its gRPC status when it failed with one. */
  onClosed(reason: string, code?: grpc.status): void;
}

/** Why a stream could not be opened, for logs and readiness. Never carries a stack trace. */
export class SessionRefused extends Error {
  constructor(
    message: string,
    readonly code?: grpc.status,
  ) {
    super(message);
    this.name = 'SessionRefused';
  }
}

/**
 * One Connect stream to one controller, from Hello to its end. Opening it
 * resolves only once Welcome arrived with a compatible protocol version, so a
 * session that exists is one the controller accepted.
 */
export class ControllerSession {
  private closed = false;
  /** Half-closed by the worker: nothing more may be written. */
  private ending = false;

  private constructor(
    readonly address: string,
    readonly welcome: Welcome,
    private readonly client: WorkerControllerServiceClient,
    private readonly call: grpc.ClientDuplexStream<WorkerFrame, ControllerFrame>,
    private readonly handlers: SessionHandlers,
  ) {}

  /**
   * Opens the stream with `authorization: Bearer <accessToken>` metadata when
   * the worker has a token (the controller checks it at open, so a token that
   * expires later does not end the stream), and an anonymous worker's
   * persisted instance id, so it keeps one identity across reconnects.
   */
  static open(
    endpoint: Endpoint,
    channel: ControllerChannel,
    accessToken: string | undefined,
    instanceId: string | undefined,
    hello: Hello,
    welcomeTimeoutMs: number,
    handlers: SessionHandlers,
  ): Promise<ControllerSession> {
    const address = endpointAddress(endpoint);
    const client = new WorkerControllerServiceClient(address, channel.credentials, channel.options);
    const metadata = new grpc.Metadata();
    if (accessToken) metadata.set('authorization', `Bearer ${accessToken}`);
    else if (instanceId) metadata.set(WORKER_INSTANCE_METADATA, instanceId);
    const call = client.connect(metadata);
    return new Promise<ControllerSession>((resolve, reject) => {
      let session: ControllerSession | undefined;
      let settled = false;
      const fail = (reason: string, code?: grpc.status) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        call.cancel();
        client.close();
        reject(new SessionRefused(`${address}: ${reason}`, code));
      };
      const timer = setTimeout(() => fail(`no Welcome within ${welcomeTimeoutMs} ms`), welcomeTimeoutMs);
      const end = (reason: string, code?: grpc.status) => {
        if (!session) return fail(reason, code);
        session.markClosed(reason, code);
      };

      call.on('data', (frame: ControllerFrame) => {
        const payload = frame.frame;
        if (payload === undefined) return; // a frame type from a newer minor: ignored by contract
        if (session) return handlers.onFrame(payload);
        // A controller refuses a stream with an Error frame before the status: its code
        // says whether the access token was refused (the worker then gets a new one).
        if (payload.$case === 'error') {
          const code = payload.value.code === ErrorCode.UNAUTHENTICATED ? grpc.status.UNAUTHENTICATED : undefined;
          return fail(`refused: ${payload.value.message}`, code);
        }
        if (payload.$case !== 'welcome') return fail(`expected Welcome first, got ${payload.$case}`);
        const version = checkPeerProtocolVersion(payload.value.protocolVersion);
        if (!version.compatible) return fail(version.reason);
        settled = true;
        clearTimeout(timer);
        session = new ControllerSession(address, payload.value, client, call, handlers);
        resolve(session);
      });
      call.on('error', (error: grpc.ServiceError) => end(`stream failed: ${describeFailure(channel, error)}`, error.code));
      call.on('end', () => end('the controller ended the stream'));
      call.write({ frame: { $case: 'hello', value: hello } });
    });
  }

  get isOpen(): boolean {
    return !this.closed && !this.ending;
  }

  send(frame: NonNullable<WorkerFrame['frame']>): boolean {
    if (this.closed || this.ending) return false;
    this.call.write({ frame });
    return true;
  }

  /**
   * Half-closes the stream after what was written, and waits (bounded) until
   * the controller ends it too, so the last results and logs are delivered.
   */
  async finish(waitMs: number): Promise<void> {
    if (!this.closed && !this.ending) {
      this.ending = true;
      const ended = new Promise<void>((resolve) => {
        this.call.once('status', () => resolve());
        this.call.once('error', () => resolve());
      });
      this.call.end();
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
    }
    this.abandon();
  }

  /** Drops the stream at once. */
  abandon(): void {
    this.markClosed('closed by the worker');
    this.call.cancel();
  }

  private markClosed(reason: string, code?: grpc.status): void {
    if (this.closed) return;
    this.closed = true;
    this.client.close();
    this.handlers.onClosed(reason, code);
  }
}
