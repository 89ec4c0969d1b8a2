import * as grpc from '@grpc/grpc-js';
import {
  checkPeerProtocolVersion,
  frameSizeChannelOptions,
  WorkerControllerServiceClient,
  type ControllerFrame,
  type Hello,
  type Welcome,
  type WorkerFrame,
} from '@lanner/frames';
import type { Endpoint } from '@lanner/runtime';

export function endpointAddress(endpoint: Endpoint): string {
  return endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}

type ControllerFramePayload = NonNullable<ControllerFrame['frame']>;

export interface SessionHandlers {
  /** Every frame after Welcome. */
  onFrame(frame: ControllerFramePayload): void;
  /** The stream ended (once), with why, for logs. */
  onClosed(reason: string): void;
}

/** Why a stream could not be opened, for logs and readiness. Never carries a stack trace. */
export class SessionRefused extends Error {
  constructor(message: string) {
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

  private constructor(
    readonly address: string,
    readonly welcome: Welcome,
    private readonly client: WorkerControllerServiceClient,
    private readonly call: grpc.ClientDuplexStream<WorkerFrame, ControllerFrame>,
    private readonly handlers: SessionHandlers,
  ) {}

  static open(endpoint: Endpoint, hello: Hello, welcomeTimeoutMs: number, handlers: SessionHandlers): Promise<ControllerSession> {
    const address = endpointAddress(endpoint);
    const client = new WorkerControllerServiceClient(address, grpc.credentials.createInsecure(), frameSizeChannelOptions());
    const call = client.connect();
    return new Promise<ControllerSession>((resolve, reject) => {
      let session: ControllerSession | undefined;
      let settled = false;
      const fail = (reason: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        call.cancel();
        client.close();
        reject(new SessionRefused(`${address}: ${reason}`));
      };
      const timer = setTimeout(() => fail(`no Welcome within ${welcomeTimeoutMs} ms`), welcomeTimeoutMs);
      const end = (reason: string) => {
        if (!session) return fail(reason);
        session.markClosed(reason);
      };

      call.on('data', (frame: ControllerFrame) => {
        const payload = frame.frame;
        if (payload === undefined) return; // a frame type from a newer minor: ignored by contract
        if (session) return handlers.onFrame(payload);
        if (payload.$case === 'error') return fail(`refused: ${payload.value.message}`);
        if (payload.$case !== 'welcome') return fail(`expected Welcome first, got ${payload.$case}`);
        const version = checkPeerProtocolVersion(payload.value.protocolVersion);
        if (!version.compatible) return fail(version.reason);
        settled = true;
        clearTimeout(timer);
        session = new ControllerSession(address, payload.value, client, call, handlers);
        resolve(session);
      });
      call.on('error', (error: grpc.ServiceError) => end(`stream failed: ${grpc.status[error.code] ?? error.code} ${error.details}`));
      call.on('end', () => end('the controller ended the stream'));
      call.write({ frame: { $case: 'hello', value: hello } });
    });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  send(frame: NonNullable<WorkerFrame['frame']>): boolean {
    if (this.closed) return false;
    this.call.write({ frame });
    return true;
  }

  /**
   * Half-closes the stream after what was written, and waits (bounded) until
   * the controller ends it too, so the last results and logs are delivered.
   */
  async finish(waitMs: number): Promise<void> {
    if (!this.closed) {
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

  private markClosed(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.client.close();
    this.handlers.onClosed(reason);
  }
}
