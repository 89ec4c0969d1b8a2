import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  checkPeerProtocolVersion,
  durationFromMillis,
  ErrorCode,
  jobMessageId,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  SubscriptionMode,
  type Hello,
  type JobResult,
  type JobStarted,
  type Subscription,
  type WorkerFrame,
} from '@lanner/frames';
import type { WorkerGroupRecord } from '@lanner/model';
import { DEFAULT_WORKER_GROUP_ID, DEFAULT_WORKER_QUEUE_ID, NotFound, SYSTEM_WORKER_QUEUE_ID, type Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { CONTROLLER_SETTINGS, ControllerIdentity, type ControllerSettings } from './controller-settings';
import { FrameRelay } from './frame-relay';
import { JobDispatch } from './job-dispatch';
import { WorkerFleet, WorkerSession, type HeldJob, type WorkerCall } from './worker-fleet';

/** How often workers heartbeat (sent in Welcome). */
export const HEARTBEAT_INTERVAL_MS = 3_000;
/** A stream silent for this many heartbeat intervals is ended and its jobs reported lost. */
const SILENT_INTERVALS_BEFORE_END = 5;

type WorkerFrameCase = NonNullable<WorkerFrame['frame']>;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The conversation on each worker stream (proto/lanner/worker/v1/controller.proto):
 * identity at open, Hello checked, Welcome, then credits, job progress, logs,
 * metrics and draining; when the stream ends, every job the worker still held
 * is reported lost and removed from the running-job store.
 */
@Injectable()
export class WorkerStreams {
  private readonly logger = new Logger(WorkerStreams.name);
  private readonly open = new Set<WorkerConversation>();
  private closing = false;

  constructor(
    @Inject(CONTROLLER_SETTINGS) readonly settings: ControllerSettings,
    @Inject(REPOSITORIES) readonly repositories: Repositories,
    readonly identity: ControllerIdentity,
    readonly fleet: WorkerFleet,
    readonly dispatch: JobDispatch,
    readonly relay: FrameRelay,
  ) {}

  /** The gRPC handler of `Connect`. */
  connect(call: WorkerCall): void {
    if (this.closing) {
      refuse(call, ErrorCode.INTERNAL, grpc.status.UNAVAILABLE, 'this controller is shutting down; connect to another one');
      return;
    }
    // Registration tokens arrive with the auth issue; until then a token is refused rather than trusted unchecked.
    if (call.metadata.get('authorization').length > 0) {
      refuse(call, ErrorCode.UNAUTHENTICATED, grpc.status.UNAUTHENTICATED, 'this controller does not accept worker tokens yet; start the worker without a registration token');
      return;
    }
    if (!this.settings.allowAnonymousWorkers) {
      refuse(
        call,
        ErrorCode.UNAUTHENTICATED,
        grpc.status.UNAUTHENTICATED,
        'anonymous workers are not allowed on this controller (LANNER_ALLOW_ANONYMOUS_WORKERS is false); give the worker a registration token',
      );
      return;
    }
    const conversation = new WorkerConversation(this, call, this.logger);
    this.open.add(conversation);
    void conversation.ended.then(() => this.open.delete(conversation));
  }

  /** Ends every stream (Reconnect first, so workers move to another controller) and reports their jobs lost. */
  async closeAll(reason: string): Promise<void> {
    this.closing = true;
    await Promise.all([...this.open].map((conversation) => conversation.end(reason, true)));
  }
}

class WorkerConversation {
  private session: WorkerSession | undefined;
  /** Frames are handled one after the other, so a result is never relayed before its job's start. */
  private pending: Promise<void> = Promise.resolve();
  private finished = false;
  private refused = false;
  private readonly silenceCheck: NodeJS.Timeout;
  private resolveEnded!: () => void;
  readonly ended = new Promise<void>((resolve) => (this.resolveEnded = resolve));
  private endedOnce: Promise<void> | undefined;

  constructor(
    private readonly streams: WorkerStreams,
    private readonly call: WorkerCall,
    private readonly logger: Logger,
  ) {
    call.on('data', (frame: WorkerFrame) => {
      if (this.session) this.session.lastHeardAt = Date.now();
      this.pending = this.pending
        .then(() => this.handle(frame))
        .catch((error: unknown) => this.logger.error({ workerId: this.session?.workerId, error: message(error) }, 'worker frame could not be handled'));
    });
    // grpc-js emits 'end' before 'cancelled' for a dropped stream; waiting a turn lets the more precise reason win.
    call.on('end', () => setImmediate(() => void this.end('the worker closed the stream', false)));
    // grpc-js shows an over-limit frame from the worker as a plain cancellation, so the reason names both causes.
    call.on('cancelled', () => void this.end(`its stream dropped (the worker disconnected, or sent a frame over the ${MAX_FRAME_BYTES}-byte limit)`, false));
    // grpc-js reports a status object ({ code, details }), not always an Error.
    call.on('error', (error: { message?: string; details?: string }) => void this.end(`the stream failed: ${error.details ?? error.message ?? 'unknown error'}`, false));
    call.on('close', () => setImmediate(() => void this.end('the stream closed', false)));
    this.silenceCheck = setInterval(() => {
      const session = this.session;
      if (session && Date.now() - session.lastHeardAt > SILENT_INTERVALS_BEFORE_END * HEARTBEAT_INTERVAL_MS) {
        void this.end(`no frame from the worker for ${(SILENT_INTERVALS_BEFORE_END * HEARTBEAT_INTERVAL_MS) / 1000} s`, false);
      }
    }, HEARTBEAT_INTERVAL_MS);
    this.silenceCheck.unref();
  }

  private async handle(frame: WorkerFrame): Promise<void> {
    const received = frame.frame;
    // After a refusal nothing more is read; after an ordinary end, frames already received still count.
    if (received === undefined || this.refused) return;
    if (!this.session) return this.greet(received);
    const session = this.session;
    switch (received.$case) {
      case 'credit':
        session.credit += received.value.slots;
        this.streams.dispatch.creditChanged();
        return;
      case 'heartbeat':
        return;
      case 'jobStarted':
        return this.jobStarted(session, received.value);
      case 'jobResult':
        return this.jobResult(session, received.value);
      case 'logBatch':
        return this.streams.relay.logs(session, received.value.entries);
      case 'metricBatch':
        return this.streams.relay.metrics(session, received.value.metrics);
      case 'draining':
        session.draining = true;
        this.logger.log({ workerId: session.workerId, reason: received.value.reason }, 'worker draining: no new jobs to it');
        this.streams.dispatch.creditChanged();
        return;
      case 'hello':
        session.send({ frame: { $case: 'error', value: { code: ErrorCode.INVALID_FRAME, message: 'hello was already received on this stream', fatal: false } } });
        return;
    }
  }

  private async greet(first: WorkerFrameCase): Promise<void> {
    if (first.$case !== 'hello') {
      return this.refuseAndEnd(ErrorCode.INVALID_FRAME, grpc.status.FAILED_PRECONDITION, `the first frame must be hello, got ${first.$case}`);
    }
    const hello: Hello = first.value;
    const version = checkPeerProtocolVersion(hello.protocolVersion);
    if (!version.compatible) {
      return this.refuseAndEnd(ErrorCode.UNSUPPORTED_PROTOCOL_VERSION, grpc.status.FAILED_PRECONDITION, version.reason);
    }
    let subscriptions: Subscription[];
    try {
      const group = await this.defaultGroup();
      // WORKERS.md: the system queue is served only by the executor's in-process system worker, never by a remote one.
      subscriptions = group.subscriptions
        .filter((subscription) => subscription.workerQueueId !== SYSTEM_WORKER_QUEUE_ID)
        .map((subscription) => ({
          queueId: subscription.workerQueueId,
          reservedPercent: subscription.reservedPercent ?? 0,
          mode: subscription.mode === 'ELASTIC' ? SubscriptionMode.ELASTIC : SubscriptionMode.STRICT,
        }));
    } catch (error) {
      this.logger.error({ error: message(error) }, "cannot read the default worker group's subscriptions");
      return this.refuseAndEnd(ErrorCode.INTERNAL, grpc.status.UNAVAILABLE, 'the controller cannot read its worker groups right now; reconnect later');
    }
    if (this.finished) return;

    const workerId = `worker-${randomUUID()}`;
    const session = new WorkerSession(
      workerId,
      hello.workerName,
      DEFAULT_WORKER_GROUP_ID,
      subscriptions.map((subscription) => subscription.queueId),
      this.call,
    );
    this.session = session;
    this.streams.fleet.add(session);
    session.send({
      frame: {
        $case: 'welcome',
        value: {
          workerId,
          workerGroupId: DEFAULT_WORKER_GROUP_ID,
          subscriptions,
          heartbeatInterval: durationFromMillis(HEARTBEAT_INTERVAL_MS),
          protocolVersion: { ...PROTOCOL_VERSION },
          maxFrameBytes: MAX_FRAME_BYTES,
          controllerId: this.streams.identity.id,
        },
      },
    });
    this.logger.log(
      { workerId, workerName: hello.workerName, slots: hello.slots, queues: session.queueIds, workerGroupId: DEFAULT_WORKER_GROUP_ID },
      'worker connected',
    );
    for (const queueId of session.queueIds) this.streams.dispatch.retain(queueId);
  }

  /**
   * The `default` group, or, before anything seeded the reserved topology (the
   * API does at start), what it always is: subscribed to the `default` queue.
   */
  private async defaultGroup(): Promise<Pick<WorkerGroupRecord, 'subscriptions'>> {
    try {
      return await this.streams.repositories.workerGroups.get(DEFAULT_WORKER_GROUP_ID);
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
      return { subscriptions: [{ workerGroupId: DEFAULT_WORKER_GROUP_ID, workerQueueId: DEFAULT_WORKER_QUEUE_ID, reservedPercent: null, mode: 'STRICT' }] };
    }
  }

  private async jobStarted(session: WorkerSession, frame: JobStarted): Promise<void> {
    const job = session.held.get(jobMessageId(frame.taskRunId, frame.attempt));
    if (!job) return this.unknownJob(session, frame.taskRunId, frame.attempt);
    // Idempotent on (task run, attempt): a duplicate JobStarted changes nothing.
    if (job.started) return;
    job.started = true;
    await this.streams.relay.started(session, job, frame);
  }

  private async jobResult(session: WorkerSession, frame: JobResult): Promise<void> {
    const known = session.knownJob(frame.taskRunId, frame.attempt);
    if (!known) return this.unknownJob(session, frame.taskRunId, frame.attempt);
    if (known.finished) return; // a duplicate result changes nothing
    await this.streams.relay.result(session, known.job, frame);
    session.finish(known.job);
    await this.streams.repositories.runningJobs.remove(frame.taskRunId, frame.attempt);
    this.logger.log({ workerId: session.workerId, taskRunId: frame.taskRunId, attempt: frame.attempt, executionId: known.job.executionId }, 'job result relayed');
  }

  private unknownJob(session: WorkerSession, taskRunId: string, attempt: number): void {
    session.send({
      frame: {
        $case: 'error',
        value: { code: ErrorCode.UNKNOWN_JOB, message: `this worker holds no job ${jobMessageId(taskRunId, attempt)} on this controller`, fatal: false },
      },
    });
  }

  private refuseAndEnd(code: ErrorCode, status: grpc.status, reason: string): void {
    this.refused = true;
    refuse(this.call, code, status, reason);
    void this.end(reason, false);
  }

  /** Idempotent. `byController`: the controller is shutting down, so the worker is told to reconnect elsewhere. */
  end(reason: string, byController: boolean): Promise<void> {
    this.endedOnce ??= this.finish(reason, byController);
    return this.endedOnce;
  }

  private async finish(reason: string, byController: boolean): Promise<void> {
    this.finished = true;
    clearInterval(this.silenceCheck);
    const session = this.session;
    if (session) {
      if (byController) session.send({ frame: { $case: 'reconnect', value: { reason, delay: durationFromMillis(0) } } });
      session.closed = true;
      this.streams.fleet.remove(session);
      for (const queueId of session.queueIds) this.streams.dispatch.release(queueId);
      this.streams.dispatch.creditChanged();
    }
    try {
      this.call.end();
    } catch {
      // Already ended by the peer or by a refusal.
    }
    // Frames already received (a result just before the end) are recorded before the rest is declared lost.
    await this.pending;
    if (session) {
      this.logger.log({ workerId: session.workerId, reason, heldJobs: session.held.size }, 'worker stream ended');
      for (const job of [...session.held.values()]) await this.reportLost(session, job, reason);
    }
    this.resolveEnded();
  }

  private async reportLost(session: WorkerSession, job: HeldJob, reason: string): Promise<void> {
    try {
      await this.streams.relay.workerLost(session.workerId, job, `worker ${session.workerId} lost: ${reason}`);
      session.held.delete(jobMessageId(job.taskRunId, job.attempt));
      await this.streams.repositories.runningJobs.remove(job.taskRunId, job.attempt);
    } catch (error) {
      // The row stays in the running-job store, where the liveness coordinator finds it.
      this.logger.error({ workerId: session.workerId, taskRunId: job.taskRunId, attempt: job.attempt, error: message(error) }, 'could not report a lost job');
    }
  }
}

function refuse(call: WorkerCall, code: ErrorCode, status: grpc.status, reason: string): void {
  call.write({ frame: { $case: 'error', value: { code, message: reason, fatal: true } } });
  // grpc-js turns an 'error' emitted on a server stream into the call's final status.
  call.emit('error', { code: status, details: reason });
}
