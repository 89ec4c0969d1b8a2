import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AccessTokenRejected, bearerToken } from '@lanner/auth';
import type { CapacitySubscription } from '@lanner/capacity';
import {
  anonymousWorkerId,
  durationFromMillis,
  isWorkerInstanceId,
  jobMessageId,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  SubscriptionMode,
  type JobRef,
  type JobResult,
  type JobStarted,
  type Subscription,
  WORKER_INSTANCE_METADATA,
  type WorkerFrame,
} from '@lanner/frames';
import {
  DEFAULT_WORKER_RESTART_STRATEGY,
  type RunningJobRecord,
  type StoredJson,
  type SubscriptionRecord,
  type WorkerRestartStrategy,
  DEFAULT_WORKER_GROUP_ID,
  SYSTEM_WORKER_QUEUE_ID,
} from '@lanner/model';
import { CONNECTED_WORKER_STALE_MS, NotFound, type Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import {
  helloVerdict,
  nextSession,
  notAdoptedFrames,
  openSession,
  type HeldJobs,
  type Session,
  type SessionEffect,
  type SessionInput,
  type SessionTimings,
} from '@lanner/worker-session';
import { CLOCK, type Clock } from './clock';
import {
  CONTROLLER_SETTINGS,
  ControllerIdentity,
  controllerTimings,
  DEFAULT_WORKER_ADOPTION_GRACE_MS,
  type ControllerSettings,
} from './controller-settings';
import { FrameRelay } from './frame-relay';
import { refusalStatus, type RefusalKind } from './grpc-refusals';
import { JobDispatch } from './job-dispatch';
import { WorkerAuthGrpc } from './worker-auth.grpc';
import { heldJobOfRow, WorkerFleet, WorkerSession, type HeldJob, type WorkerCall } from './worker-fleet';
import { WorkerRegistry } from './worker-registry';

/** Recycling ages are spread by up to this fraction so streams opened together do not all end together. */
const RECYCLE_JITTER = 0.1;

export const REVOKED_TOKEN_MESSAGE = 'the registration token of this worker was revoked';
/** Why a worker of a group subscribed to `system` gets no stream: only the executor's in-process worker serves that queue. */
export function systemSubscriptionRefusal(workerGroupId: string): string {
  return `the worker group '${workerGroupId}' subscribes to the '${SYSTEM_WORKER_QUEUE_ID}' worker queue, which only the executor's in-process system worker serves: remove that subscription (workerQueueId '${SYSTEM_WORKER_QUEUE_ID}') from the group`;
}

const UNSEEDED_TOPOLOGY_MESSAGE = 'the worker topology is not seeded; start the api or run lanner db migrate';

type WorkerFrameCase = NonNullable<WorkerFrame['frame']>;

/** What the session rules read of the jobs a worker's session holds. */
function heldJobsOf(session: WorkerSession): HeldJobs {
  return {
    get size() {
      return session.held.size;
    },
    held: (ref) => session.held.get(jobMessageId(ref.taskRunId, ref.attempt)),
    known: (ref) => session.knownJob(ref.taskRunId, ref.attempt),
    entries: () => session.held.entries(),
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Who the stream belongs to, from the verified access token (or anonymous), never from the worker's frames. */
interface StreamIdentity {
  readonly workerId: string;
  readonly workerGroupId: string;
  /** null for an anonymous worker of the `default` group. */
  readonly registrationTokenId: string | null;
}

/** The stream may proceed: who it is and what its group serves. */
interface Admission extends StreamIdentity {
  subscriptions: CapacitySubscription[];
}

/** A refusal at admission: its kind (which gives the gRPC status) and the words the worker's operator reads. */
class Refusal {
  constructor(
    readonly kind: RefusalKind,
    readonly reason: string,
  ) {}
}

/** The subscriptions a remote worker serves: WORKERS.md reserves the `system` queue for the executor's in-process worker. */
export function servedSubscriptions(
  subscriptions: readonly { workerQueueId: string; reservedPercent?: number | null; mode: 'STRICT' | 'ELASTIC' }[],
): CapacitySubscription[] {
  return subscriptions
    .filter((subscription) => subscription.workerQueueId !== SYSTEM_WORKER_QUEUE_ID)
    .map((subscription) => ({
      workerQueueId: subscription.workerQueueId,
      reservedPercent: subscription.reservedPercent ?? 0,
      mode: subscription.mode,
    }));
}

function subscriptionFrames(subscriptions: readonly CapacitySubscription[]): Subscription[] {
  return subscriptions.map((subscription) => ({
    queueId: subscription.workerQueueId,
    reservedPercent: subscription.reservedPercent ?? 0,
    mode: subscription.mode === 'ELASTIC' ? SubscriptionMode.ELASTIC : SubscriptionMode.STRICT,
  }));
}

/**
 * The conversation on each worker stream (proto/lanner/worker/v1/controller.proto):
 * identity from the access token at open, Hello checked, Welcome, then credits,
 * job progress, logs, metrics and draining; live subscription changes and
 * revocations from broadcasts; recycling of old streams. When a stream ends,
 * the jobs its worker still held wait the adoption grace (`adoptionGraceMs`) for a new stream to
 * adopt them before they are reported lost.
 */
@Injectable()
export class WorkerStreams {
  private readonly logger = new Logger(WorkerStreams.name);
  private readonly open = new Set<WorkerConversation>();
  /** By worker id: its streams here from Hello until the jobs they left are adopted or reported lost. */
  private readonly streamsOfWorker = new Map<string, Set<WorkerConversation>>();
  /** Registration tokens revoked while this controller runs: a stream admitted just before still ends. */
  readonly revokedTokens = new Set<string>();
  /** Row removals of relayed results still to be written (shutdown waits for them). */
  private readonly rowRemovals = new Set<Promise<void>>();
  /** Per job (task run + attempt): adoption and lost reports of one job on this controller take turns. */
  private readonly jobTurns = new Map<string, Promise<void>>();
  private closing = false;
  /**
   * After a stream ends, how long its jobs wait for the worker to reconnect and
   * adopt them (Hello.running_jobs, on this or another controller) before they
   * are reported lost: a brief reconnect never causes a second run.
   */
  readonly adoptionGraceMs: number;
  /** The cadences the session rules count in (the controller's settings, or the variable table's defaults). */
  readonly timings: SessionTimings;

  constructor(
    @Inject(CONTROLLER_SETTINGS) readonly settings: ControllerSettings,
    @Inject(REPOSITORIES) readonly repositories: Repositories,
    readonly identity: ControllerIdentity,
    readonly fleet: WorkerFleet,
    readonly dispatch: JobDispatch,
    readonly relay: FrameRelay,
    readonly registry: WorkerRegistry,
    readonly auth: WorkerAuthGrpc,
    @Inject(CLOCK) readonly clock: Clock,
  ) {
    this.adoptionGraceMs = settings.adoptionGraceMs ?? DEFAULT_WORKER_ADOPTION_GRACE_MS;
    const timings = controllerTimings(settings);
    this.timings = {
      heartbeatIntervalMs: timings.heartbeatIntervalMs,
      anonymousAdoptionWaitMs: timings.anonymousAdoptionWaitMs,
      anonymousAdoptionRecheckMs: timings.anonymousAdoptionRecheckMs,
      adoptionGraceMs: this.adoptionGraceMs,
    };
  }

  /** The gRPC handler of `Connect`: the access token is checked before anything else happens on the stream. */
  connect(call: WorkerCall): void {
    if (this.closing) {
      refuse(call, 'unavailable', 'this controller is shutting down; connect to another one');
      return;
    }
    const identity = this.authenticate(call);
    if (identity instanceof Refusal) {
      refuse(call, identity.kind, identity.reason);
      this.logger.warn({ reason: identity.reason }, 'worker stream refused');
      return;
    }
    const conversation = new WorkerConversation(this, call, this.logger, this.admit(identity));
    this.open.add(conversation);
    void conversation.ended.then(() => this.open.delete(conversation));
  }

  /** The identity the stream's metadata proves, or why it proves none. Only the verified token counts. */
  private authenticate(call: WorkerCall): StreamIdentity | Refusal {
    const presented = call.metadata.get('authorization');
    if (presented.length === 0) {
      if (!this.settings.allowAnonymousWorkers) {
        return new Refusal(
          'unauthenticated',
          'anonymous workers are not allowed on this controller (LANNER_ALLOW_ANONYMOUS_WORKERS is false); give the worker a registration token',
        );
      }
      // Known by its persisted instance id, it keeps its id across reconnects and controllers (an older worker sends none).
      const instance = call.metadata.get(WORKER_INSTANCE_METADATA);
      const instanceId = instance.length === 1 && isWorkerInstanceId(instance[0]) ? instance[0] : randomUUID();
      return { workerId: anonymousWorkerId(instanceId), workerGroupId: DEFAULT_WORKER_GROUP_ID, registrationTokenId: null };
    }
    const token = presented.length === 1 && typeof presented[0] === 'string' ? bearerToken(presented[0]) : undefined;
    if (token === undefined) {
      return new Refusal('unauthenticated', "the authorization metadata must be one 'Bearer <access token>' value");
    }
    try {
      const verified = this.auth.accessTokens.verify(token, this.clock.now());
      return {
        workerId: verified.workerId,
        workerGroupId: verified.workerGroupId,
        registrationTokenId: verified.registrationTokenId,
      };
    } catch (error) {
      if (error instanceof AccessTokenRejected) return new Refusal('unauthenticated', error.message);
      this.logger.error({ error: message(error) }, 'access token check failed');
      return new Refusal('unavailable', 'the controller could not check the access token; reconnect later');
    }
  }

  /** The repository's word on a verified identity: the token still stands and the group exists. */
  private async admit(identity: StreamIdentity): Promise<Admission | Refusal> {
    try {
      if (identity.registrationTokenId !== null) {
        const refusal = await this.tokenRefusal(identity.workerGroupId, identity.registrationTokenId);
        if (refusal) return refusal;
      }
      const group = await this.repositories.workerGroups.get(identity.workerGroupId);
      // The API, the setup file and Terraform refuse such a subscription; a row written around them is refused here.
      if (group.subscriptions.some((subscription) => subscription.workerQueueId === SYSTEM_WORKER_QUEUE_ID))
        return new Refusal('unfit-configuration', systemSubscriptionRefusal(group.id));
      return { ...identity, subscriptions: servedSubscriptions(group.subscriptions as SubscriptionRecord[]) };
    } catch (error) {
      if (error instanceof NotFound) {
        if (identity.workerGroupId === DEFAULT_WORKER_GROUP_ID) return new Refusal('unavailable', UNSEEDED_TOPOLOGY_MESSAGE);
        return new Refusal(
          'unauthenticated',
          `the worker group '${identity.workerGroupId}' of this worker no longer exists; register again with a token of an existing group`,
        );
      }
      this.logger.error(
        { workerId: identity.workerId, error: message(error) },
        'cannot read the worker group of a connecting worker',
      );
      return new Refusal('unavailable', 'the controller cannot read its worker groups right now; reconnect later');
    }
  }

  private async tokenRefusal(workerGroupId: string, registrationTokenId: string): Promise<Refusal | undefined> {
    if (this.revokedTokens.has(registrationTokenId)) return new Refusal('unauthenticated', REVOKED_TOKEN_MESSAGE);
    const token = await this.repositories.registrationTokens.findById(registrationTokenId);
    if (!token || token.workerGroupId !== workerGroupId) {
      return new Refusal('unauthenticated', 'the registration token of this worker was deleted; register again with a new token');
    }
    if (token.revokedAt !== null) return new Refusal('unauthenticated', REVOKED_TOKEN_MESSAGE);
    return undefined;
  }

  /**
   * `broadcast.subscriptions-changed`: the group's ledgers are reconfigured
   * (running jobs keep their slots) and its workers get ConfigChanged.
   */
  subscriptionsChanged(workerGroupId: string, subscriptions: CapacitySubscription[]): number {
    const served = servedSubscriptions(subscriptions);
    this.dispatch.subscriptionsChanged(workerGroupId, served);
    let told = 0;
    for (const conversation of this.open) {
      if (conversation.reconfigure(workerGroupId, served)) told += 1;
    }
    return told;
  }

  /**
   * `broadcast.token-revoked`: its workers get no new job from this moment
   * (synchronously, before any other job handler runs), then their streams end
   * with UNAUTHENTICATED.
   */
  tokenRevoked(registrationTokenId: string): number {
    this.revokedTokens.add(registrationTokenId);
    const affected = [...this.open].filter((conversation) => conversation.stopForRevocation(registrationTokenId));
    if (affected.length > 0) this.dispatch.creditChanged();
    for (const conversation of affected) conversation.refuseAndEnd('unauthenticated', REVOKED_TOKEN_MESSAGE);
    return affected.length;
  }

  /**
   * A stream's Hello was accepted: the worker's older streams here (open, or ended with
   * jobs waiting out the adoption grace) hear which jobs it runs now, and the jobs it left
   * out are reported lost at once. Then this stream is counted among the worker's.
   */
  workerSaidHello(workerId: string, conversation: WorkerConversation, runningJobs: readonly JobRef[]): void {
    const older = this.streamsOfWorker.get(workerId) ?? new Set<WorkerConversation>();
    for (const other of older) other.workerReconnected(runningJobs);
    older.add(conversation);
    this.streamsOfWorker.set(workerId, older);
  }

  /** The stream's jobs are adopted, finished or reported lost: a later Hello of its worker no longer concerns it. */
  streamSettled(workerId: string, conversation: WorkerConversation): void {
    const streams = this.streamsOfWorker.get(workerId);
    if (!streams?.delete(conversation) || streams.size > 0) return;
    this.streamsOfWorker.delete(workerId);
  }

  /** Shutdown has begun: streams are refused and ended, and pending lost-job checks stand down. */
  get isClosing(): boolean {
    return this.closing;
  }

  /**
   * Ends every stream (Reconnect first, so workers move to another controller)
   * and waits for the row removals of results already relayed. Shutdown does
   * not wait out the adoption grace: the jobs still held keep their
   * running-job rows under this controller, so a worker that reconnects
   * anywhere adopts them, and the liveness coordinator reports the others lost
   * once this instance is gone (with thousands of held jobs, waiting and
   * checking each here kept a controller from stopping for many seconds).
   */
  async closeAll(reason: string): Promise<void> {
    this.closing = true;
    await Promise.all([...this.open].map((conversation) => conversation.end(reason, true)));
    await Promise.all(this.rowRemovals);
  }

  /**
   * Runs `work` once every earlier turn of the same job here has settled: the
   * check "a live stream here holds it" and the store's conditional write then
   * cannot interleave with another stream's adoption or lost report of that job.
   * (Between controllers the store's conditional UPDATE / DELETE decides.)
   */
  inTurn<T>(jobKey: string, work: () => Promise<T>): Promise<T> {
    const earlier = this.jobTurns.get(jobKey) ?? Promise.resolve();
    const result = earlier.then(work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.jobTurns.set(jobKey, settled);
    void settled.then(() => {
      if (this.jobTurns.get(jobKey) === settled) this.jobTurns.delete(jobKey);
    });
    return result;
  }

  /**
   * Removes a relayed job's running-job row without holding up the worker's
   * frames. A row that cannot be removed is later taken for a lost job's (by
   * this controller's reconciliation, or the liveness coordinator once it is
   * gone), and the executor, having recorded the attempt's end, ignores that
   * report.
   */
  trackRowRemoval(workerId: string, taskRunId: string, attempt: number): void {
    const removal = this.repositories.runningJobs.removeAfterResult(taskRunId, attempt).then(
      () => undefined,
      (error: unknown) =>
        this.logger.error(
          { workerId, taskRunId, attempt, error: message(error) },
          'could not remove the running-job row of a relayed result',
        ),
    );
    this.rowRemovals.add(removal);
    void removal.finally(() => this.rowRemovals.delete(removal));
  }
}

/**
 * The adapter of one stream: it feeds the session rules (`@lanner/worker-session`)
 * the worker's frames, ticks, broadcasts and the store's answers, and carries out
 * the effects they give (frames, credit, publishing, store writes, waits, closing).
 */
class WorkerConversation {
  private session: WorkerSession | undefined;
  /** The rules' state of this stream, from the accepted Hello on. */
  private rules: Session | undefined;
  private admission: Admission | undefined;
  private subscriptions: CapacitySubscription[] = [];
  /** Counts subscription changes, for the registry fingerprint. */
  private configVersion = 0;
  /** Frames are handled one after the other, so a result is never relayed before its job's start. */
  private pending: Promise<void>;
  private finished = false;
  private refused = false;
  private readonly silenceCheck: NodeJS.Timeout;
  private recycleTimer: NodeJS.Timeout | undefined;
  private registration: { forget: () => Promise<void> } | undefined;
  /** Once the stream ended holding jobs: what reporting one of them lost needs, until all are settled. */
  private left:
    | {
        readonly session: WorkerSession;
        readonly jobs: ReadonlyMap<string, HeldJob>;
        readonly reason: string;
        readonly restartStrategy: WorkerRestartStrategy;
        reportedLost: number;
      }
    | undefined;
  private resolveEnded!: () => void;
  readonly ended = new Promise<void>((resolve) => (this.resolveEnded = resolve));
  private endedOnce: Promise<void> | undefined;

  constructor(
    private readonly streams: WorkerStreams,
    private readonly call: WorkerCall,
    private readonly logger: Logger,
    admission: Promise<Admission | Refusal>,
  ) {
    // The admission runs while the worker sends Hello; the first frame waits for it.
    this.pending = admission.then((outcome) => {
      if (outcome instanceof Refusal) {
        this.logger.warn({ reason: outcome.reason }, 'worker stream refused');
        return this.refuseAndEnd(outcome.kind, outcome.reason);
      }
      if (outcome.registrationTokenId !== null && this.streams.revokedTokens.has(outcome.registrationTokenId)) {
        return this.refuseAndEnd('unauthenticated', REVOKED_TOKEN_MESSAGE);
      }
      this.admission = outcome;
      this.subscriptions = outcome.subscriptions;
    });
    call.on('data', (frame: WorkerFrame) => {
      this.step({ kind: 'heard' });
      this.pending = this.pending
        .then(() => this.handle(frame))
        .catch((error: unknown) =>
          this.logger.error({ workerId: this.session?.workerId, error: message(error) }, 'worker frame could not be handled'),
        );
    });
    // grpc-js emits 'end' before 'cancelled' for a dropped stream; waiting a turn lets the more precise reason win.
    call.on('end', () => setImmediate(() => void this.end('the worker closed the stream', false)));
    // grpc-js shows an over-limit frame from the worker as a plain cancellation, so the reason names both causes.
    call.on(
      'cancelled',
      () =>
        void this.end(
          `its stream dropped (the worker disconnected, or sent a frame over the ${MAX_FRAME_BYTES}-byte limit)`,
          false,
        ),
    );
    // grpc-js reports a status object ({ code, details }), not always an Error.
    call.on(
      'error',
      (error: { message?: string; details?: string }) =>
        void this.end(`the stream failed: ${error.details ?? error.message ?? 'unknown error'}`, false),
    );
    call.on('close', () => setImmediate(() => void this.end('the stream closed', false)));
    this.silenceCheck = setInterval(() => {
      for (const effect of this.step({ kind: 'tick' })) {
        if (effect.kind === 'close') void this.end(effect.reason, effect.byController);
      }
    }, this.streams.timings.heartbeatIntervalMs);
    this.silenceCheck.unref();
  }

  /** One step of the session rules at the controller's time; nothing before Hello is accepted. */
  private step(input: SessionInput): readonly SessionEffect[] {
    if (this.rules === undefined) return [];
    const { session, effects } = nextSession(this.rules, input, this.streams.clock.nowMs());
    this.rules = session;
    return effects;
  }

  /** Carries out the effects of a frame, one after the other (a result is relayed before the credit it carries). */
  private async carryOut(session: WorkerSession, effects: readonly SessionEffect[]): Promise<void> {
    for (const effect of effects) {
      switch (effect.kind) {
        case 'send':
          session.send({ frame: effect.frame });
          break;
        case 'grant-credit':
          session.credit += effect.slots;
          this.streams.dispatch.creditChanged();
          break;
        case 'drain':
          session.draining = true;
          this.logger.log({ workerId: session.workerId, reason: effect.reason }, 'worker draining: no new jobs to it');
          this.streams.dispatch.creditChanged();
          break;
        case 'forget-finished':
          session.forgetFinishedJobs();
          break;
        case 'publish-started':
          await this.jobStarted(session, effect.frame);
          break;
        case 'publish-result':
          await this.jobResult(session, effect.frame);
          break;
        case 'relay':
          if (effect.frame.$case === 'logBatch') await this.streams.relay.logs(session, effect.frame.value.entries);
          else await this.streams.relay.metrics(session, effect.frame.value.metrics);
          break;
        case 'lost':
          await this.lostByHeartbeats(session, effect.key, effect.reason);
          break;
        case 'close':
          void this.end(effect.reason, effect.byController);
          break;
        default:
          // Adoption and grace effects come only from the inputs of those conversations (adopt, lostUnlessAdopted).
          break;
      }
    }
  }

  /** A subscriptions broadcast for this stream's group: new list kept, ConfigChanged sent. */
  reconfigure(workerGroupId: string, subscriptions: CapacitySubscription[]): boolean {
    const session = this.session;
    if (this.admission?.workerGroupId !== workerGroupId) return false;
    this.subscriptions = subscriptions;
    this.configVersion += 1;
    if (!session || this.finished) return true; // Welcome (still to come) carries the new list
    session.send({ frame: { $case: 'configChanged', value: { subscriptions: subscriptionFrames(subscriptions) } } });
    // Debug: a group change reaches thousands of workers at once; the broadcast follower logs one line for all of them.
    this.logger.debug(
      { workerId: session.workerId, workerGroupId, queues: subscriptions.map((s) => s.workerQueueId) },
      'worker reconfigured',
    );
    return true;
  }

  /** True when this stream authenticated with the revoked token; from now on it is sent nothing new. */
  stopForRevocation(registrationTokenId: string): boolean {
    if (this.finished || this.refused) return false;
    if (this.admission === undefined || this.admission.registrationTokenId !== registrationTokenId) return false;
    if (this.session) {
      this.session.draining = true;
      this.session.closed = true;
    }
    return true;
  }

  private async handle(frame: WorkerFrame): Promise<void> {
    const received = frame.frame;
    // After a refusal nothing more is read; after an ordinary end, frames already received still count.
    if (received === undefined || this.refused) return;
    if (!this.session) return this.greet(received);
    const session = this.session;
    return this.carryOut(session, this.step({ kind: 'frame', frame: received, jobs: heldJobsOf(session) }));
  }

  private async greet(first: WorkerFrameCase): Promise<void> {
    const admission = this.admission;
    if (!admission || this.finished) return;
    const verdict = helloVerdict(first);
    if (!('hello' in verdict)) return this.refuseAndEnd(verdict.refusal, verdict.reason);
    const { hello } = verdict;

    const { workerId, workerGroupId, registrationTokenId } = admission;
    let session: WorkerSession;
    try {
      session = new WorkerSession({
        workerId,
        workerName: hello.workerName,
        workerGroupId,
        registrationTokenId,
        slots: hello.slots,
        subscriptions: this.subscriptions,
        labels: { ...hello.labels },
        connectedAt: this.streams.clock.now(),
        call: this.call,
        clock: this.streams.clock,
      });
    } catch (error) {
      this.logger.error(
        { workerId, workerGroupId, error: message(error) },
        "the worker group's subscriptions do not fit the worker",
      );
      return this.refuseAndEnd(
        'unfit-configuration',
        `the subscriptions of worker group '${workerGroupId}' cannot be applied to this worker: ${message(error)}`,
      );
    }
    this.session = session;
    this.rules = openSession({ workerId, workerGroupId, registrationTokenId }, this.streams.timings, this.streams.clock.nowMs());
    // What the worker runs now: the jobs its older streams here held and it left out are lost at once.
    this.streams.workerSaidHello(workerId, this, hello.runningJobs);
    const { adopted, notAdopted } = await this.adopt(session, hello.runningJobs);
    if (this.finished) return;

    session.send({
      frame: {
        $case: 'welcome',
        value: {
          workerId,
          workerGroupId,
          subscriptions: subscriptionFrames(this.subscriptions),
          heartbeatInterval: durationFromMillis(this.streams.timings.heartbeatIntervalMs),
          protocolVersion: { ...PROTOCOL_VERSION },
          maxFrameBytes: MAX_FRAME_BYTES,
          controllerId: this.streams.identity.id,
        },
      },
    });
    this.stopNotAdopted(session, notAdopted);
    this.streams.dispatch.workerJoined(session);
    this.registration = this.streams.registry.track(
      () => ({
        workerId,
        workerGroupId,
        workerName: session.workerName,
        registrationTokenId,
        slots: session.slots,
        draining: session.draining,
        queueIds: this.subscriptions.map((subscription) => subscription.workerQueueId),
        capacity: session.capacitySnapshot() as unknown as StoredJson,
        labels: session.labels as StoredJson,
        connectedAt: session.connectedAt,
      }),
      () => this.registryFingerprint(session),
      () => session.waitingFigures(),
    );
    this.scheduleRecycling();
    this.logger.log(
      {
        workerId,
        workerName: hello.workerName,
        slots: hello.slots,
        queues: this.subscriptions.map((subscription) => subscription.workerQueueId),
        workerGroupId,
        adoptedJobs: adopted,
      },
      'worker connected',
    );
  }

  /**
   * Moves whenever the worker's own part of its registry row does (both terms
   * only grow, so their sum moves with either). The jobs waiting here for its
   * queues are the controller's figure, moving with every fetch under load:
   * the registry refreshes those on its slower cadence, not on every change.
   */
  private registryFingerprint(session: WorkerSession): number {
    return session.registryRevision() + this.configVersion;
  }

  /**
   * Hello.running_jobs after a reconnect: each job this worker may hold is
   * re-pointed to this controller and stream by one conditional UPDATE of its
   * running-job row (from the holder just read), and holds its slot here. A
   * worker with a token adopts only rows recorded for its own worker id; an
   * anonymous one its own rows (its id comes from its persisted instance id)
   * and, from a worker that sent no instance id, rows of its group's queues
   * whose holder's stream is no longer connected. A job whose row is gone (result
   * recorded, or reported lost) or that another live stream holds is not adopted.
   */
  private async adopt(
    session: WorkerSession,
    refs: readonly JobRef[],
  ): Promise<{ adopted: number; notAdopted: { ref: JobRef; why: string }[] }> {
    let adopted = 0;
    const notAdopted: { ref: JobRef; why: string }[] = [];
    const servedQueues = new Set(this.subscriptions.map((subscription) => subscription.workerQueueId));
    for (const ref of refs) {
      const key = jobMessageId(ref.taskRunId, ref.attempt);
      if (session.held.has(key)) continue; // listed twice: adopted once, one slot
      const why = await this.streams.inTurn(key, () => this.adoptOne(session, ref, servedQueues));
      if (why === undefined) adopted += 1;
      else notAdopted.push({ ref, why });
    }
    return { adopted, notAdopted };
  }

  /** Call within the job's turn. The rules decide from the store's answers; undefined once adopted, else why not. */
  private async adoptOne(session: WorkerSession, ref: JobRef, servedQueues: ReadonlySet<string>): Promise<string | undefined> {
    const store = this.streams.repositories.runningJobs;
    const me = { workerId: session.workerId, controllerInstanceId: this.streams.identity.id };
    let row: RunningJobRecord | null = null;
    try {
      row = await store.get(ref.taskRunId, ref.attempt);
      let effects = this.step({ kind: 'adoption-row', ref, row, servedQueues });
      for (;;) {
        const effect = effects[0];
        if (effect === undefined) return 'the stream ended while the job was being adopted';
        switch (effect.kind) {
          case 'not-adopted':
            return effect.why;
          case 'check-holder': {
            if (effect.afterMs > 0) await new Promise((resolve) => setTimeout(resolve, effect.afterMs));
            const connected = await this.holderConnected(session, row as RunningJobRecord);
            effects = this.step({ kind: 'holder-connected', ref, connected });
            break;
          }
          case 'reassign': {
            const held = row as RunningJobRecord;
            const ok = await store.reassign(
              ref.taskRunId,
              ref.attempt,
              { workerId: held.workerId, controllerInstanceId: held.controllerInstanceId },
              me,
            );
            effects = this.step({ kind: 'reassigned', ref, ok });
            break;
          }
          case 'adopt': {
            const key = jobMessageId(ref.taskRunId, ref.attempt);
            // The old stream of this worker may still be open here: it gives the job up.
            const previous = this.streams.fleet.holderOf(ref.taskRunId, ref.attempt);
            const earlier = previous?.held.get(key);
            if (previous && earlier && previous !== session) previous.finish(earlier);
            // The slot is taken in this worker's ledger, not kept from the old stream's.
            const { lease: _oldLease, ...job } = earlier ?? heldJobOfRow(row as RunningJobRecord);
            session.adopt({ ...job, started: true });
            return undefined;
          }
          default:
            return 'the controller could not check its running-job record';
        }
      }
    } catch (error) {
      this.logger.warn(
        { workerId: session.workerId, taskRunId: ref.taskRunId, attempt: ref.attempt, error: message(error) },
        'could not adopt a running job',
      );
      const [effect] = this.step({ kind: 'adoption-failed', ref });
      return effect?.kind === 'not-adopted' ? effect.why : 'the controller could not check its running-job record';
    }
  }

  /**
   * For an anonymous worker's adoption: whether the stream the row is recorded
   * for is still connected (here: an open session holding the job or of that
   * worker id; elsewhere: a fresh row of the live worker registry).
   */
  private async holderConnected(session: WorkerSession, row: RunningJobRecord): Promise<boolean> {
    const key = jobMessageId(row.taskRunId, row.attempt);
    if (row.controllerInstanceId === this.streams.identity.id) {
      return this.streams.fleet
        .all()
        .some((other) => other !== session && !other.closed && (other.workerId === row.workerId || other.held.has(key)));
    }
    const live = await this.streams.repositories.connectedWorkers.listLive(
      new Date(this.streams.clock.nowMs() - CONNECTED_WORKER_STALE_MS),
    );
    return live.some((worker) => worker.workerId === row.workerId);
  }

  /**
   * A job the worker listed in Hello but does not hold here: the worker is told
   * (UNKNOWN_JOB) and the job is stopped, since its result is recorded, or it
   * was reported lost and may run again elsewhere.
   */
  private stopNotAdopted(session: WorkerSession, notAdopted: readonly { ref: JobRef; why: string }[]): void {
    for (const { ref, why } of notAdopted) {
      this.logger.warn(
        { workerId: session.workerId, taskRunId: ref.taskRunId, attempt: ref.attempt, reason: why },
        'running job not adopted: it is stopped on the worker',
      );
      for (const frame of notAdoptedFrames(ref, why)) session.send({ frame });
    }
  }

  private scheduleRecycling(): void {
    const ageS = this.streams.settings.streamRecycleAgeS;
    if (ageS <= 0) return;
    const afterMs = ageS * 1000 * (1 + Math.random() * RECYCLE_JITTER);
    this.recycleTimer = setTimeout(
      () => void this.end(`the stream is recycled after ${ageS} s so that every controller gets traffic`, true),
      afterMs,
    );
    this.recycleTimer.unref();
  }

  /** A started job the worker stopped reporting (the rules' `lost`): its slot frees and it is reported lost. */
  private async lostByHeartbeats(session: WorkerSession, key: string, reason: string): Promise<void> {
    const job = session.held.get(key);
    if (!job) return;
    session.finish(job);
    this.streams.dispatch.creditChanged();
    const restartStrategy = await this.restartStrategyOf(session.workerGroupId);
    await this.streams.inTurn(key, () => this.reportLost(session.workerId, job, reason, restartStrategy));
  }

  private async jobStarted(session: WorkerSession, frame: JobStarted): Promise<void> {
    const job = session.held.get(jobMessageId(frame.taskRunId, frame.attempt));
    if (!job || job.started) return;
    job.started = true;
    await this.streams.relay.started(session, job, frame);
  }

  /** The result of a job held (the rules' `publish-result`): relayed, its slot freed, its row removed. */
  private async jobResult(session: WorkerSession, frame: JobResult): Promise<void> {
    const known = session.knownJob(frame.taskRunId, frame.attempt);
    if (!known || known.finished) return;
    const state = await this.streams.relay.result(session, known.job, frame);
    session.finish(known.job);
    this.streams.dispatch.jobCompleted(session.workerGroupId, known.job.workerQueueId, state);
    // The worker's next frames do not wait for the row's removal (it goes with others of the moment); shutdown does.
    this.streams.trackRowRemoval(session.workerId, frame.taskRunId, frame.attempt);
    this.logger.log(
      { workerId: session.workerId, taskRunId: frame.taskRunId, attempt: frame.attempt, executionId: known.job.executionId },
      'job result relayed',
    );
  }

  refuseAndEnd(kind: RefusalKind, reason: string): void {
    if (this.refused || this.finished) return;
    this.refused = true;
    refuse(this.call, kind, reason);
    void this.end(reason, false);
  }

  /** Idempotent. `byController`: the controller ends the stream, so the worker is told to reconnect (elsewhere). */
  end(reason: string, byController: boolean): Promise<void> {
    this.endedOnce ??= this.finish(reason, byController);
    return this.endedOnce;
  }

  private async finish(reason: string, byController: boolean): Promise<void> {
    this.finished = true;
    this.step({ kind: 'closed' });
    clearInterval(this.silenceCheck);
    clearTimeout(this.recycleTimer);
    const session = this.session;
    if (session) {
      if (byController && !this.refused)
        session.send({ frame: { $case: 'reconnect', value: { reason, delay: durationFromMillis(0) } } });
      session.closed = true;
      this.streams.dispatch.workerLeft(session);
      this.streams.dispatch.creditChanged();
    }
    try {
      this.call.end();
    } catch {
      // Already ended by the peer or by a refusal.
    }
    // Frames already received (a result just before the end) are recorded before the rest waits for adoption.
    await this.pending.catch(() => undefined);
    if (session) {
      await this.registration?.forget();
      const held = [...session.held.values()];
      this.logger.log({ workerId: session.workerId, reason, heldJobs: held.length }, 'worker stream ended');
      // Not awaited, and shutdown does not wait for it either (see closeAll): it stands down once closing.
      if (held.length > 0)
        void this.lostUnlessAdopted(session, held, reason).finally(() => this.streams.streamSettled(session.workerId, this));
      else this.streams.streamSettled(session.workerId, this);
    }
    this.resolveEnded();
  }

  /** A newer stream of this worker said Hello here (`WorkerStreams.workerSaidHello`). */
  workerReconnected(runningJobs: readonly JobRef[]): void {
    const effects = this.step({ kind: 'worker-reconnected', runningJobs });
    if (effects.length > 0) void this.reportLostNow(effects);
  }

  /** The rules' `report-lost` of jobs the ended stream held, left out by its worker's newer Hello, each in its job's turn. */
  private async reportLostNow(effects: readonly SessionEffect[]): Promise<number> {
    const left = this.left;
    if (!left) return 0;
    let reported = 0;
    for (const effect of effects) {
      if (effect.kind !== 'report-lost') continue;
      const job = left.jobs.get(effect.key);
      if (!job || this.streams.isClosing) continue;
      await this.streams.inTurn(effect.key, async () => {
        // A later stream of this worker here adopted it meanwhile: it runs, it is not lost.
        const holder = this.streams.fleet.holderOf(job.taskRunId, job.attempt);
        if (holder !== undefined && holder !== left.session) return;
        if (await this.reportLost(left.session.workerId, job, effect.reason ?? left.reason, left.restartStrategy)) reported += 1;
      });
    }
    left.reportedLost += reported;
    if (reported > 0) {
      this.logger.log(
        { workerId: left.session.workerId, reportedLost: reported },
        'jobs of an ended stream reported lost: their worker connected again without them',
      );
    }
    return reported;
  }

  /**
   * After the grace period, each job is reported lost only if its row is still
   * held by this worker on this controller and can be removed in one
   * conditional DELETE: a job adopted by a new stream (here or on another
   * controller), or whose result came, is left alone and never reported lost.
   */
  private async lostUnlessAdopted(session: WorkerSession, jobs: HeldJob[], reason: string): Promise<void> {
    const restartStrategy = await this.restartStrategyOf(session.workerGroupId);
    const byKey = new Map(jobs.map((job) => [jobMessageId(job.taskRunId, job.attempt), job] as const));
    const left = { session, jobs: byKey, reason, restartStrategy, reportedLost: 0 };
    this.left = left;
    const effects = this.step({ kind: 'left-holding', heldJobs: [...byKey.keys()], restartStrategy });
    // The worker came back here already without some of them: reported now, the others wait.
    await this.reportLostNow(effects);
    for (const effect of effects) {
      // Never keeps a stopping process alive; after a shutdown the liveness coordinator answers for the rows.
      if (effect.kind === 'wait-grace' && effect.ms > 0) await new Promise((resolve) => setTimeout(resolve, effect.ms).unref());
    }
    if (this.streams.isClosing) return;
    let reportedLost = 0;
    for (const job of jobs) {
      const key = jobMessageId(job.taskRunId, job.attempt);
      await this.streams.inTurn(key, async () => {
        // A later stream of this worker id here may hold it (a reconnect to this controller keeps the same holder in the store).
        const holder = this.streams.fleet.holderOf(job.taskRunId, job.attempt);
        const input: SessionInput = {
          kind: 'grace-over',
          key,
          heldByAnotherStream: holder !== undefined && holder !== session,
          controllerClosing: this.streams.isClosing,
        };
        for (const effect of this.step(input)) {
          if (effect.kind === 'report-lost' && (await this.reportLost(session.workerId, job, reason, restartStrategy)))
            reportedLost += 1;
        }
      });
    }
    // One line per ended stream that held jobs: the others were adopted, finished, or are left to the liveness coordinator.
    this.logger.log(
      {
        workerId: session.workerId,
        heldJobs: jobs.length,
        reportedLost: reportedLost + left.reportedLost,
        adoptionGraceMs: this.streams.adoptionGraceMs,
      },
      'adoption grace over for an ended stream',
    );
  }

  /** The restart strategy of the group as it is now (a change applies to streams that end after it); the default if unreadable. */
  private async restartStrategyOf(workerGroupId: string): Promise<WorkerRestartStrategy> {
    try {
      return (await this.streams.repositories.workerGroups.get(workerGroupId)).restartStrategy;
    } catch (error) {
      this.logger.warn(
        { workerGroupId, error: message(error), restartStrategy: DEFAULT_WORKER_RESTART_STRATEGY },
        'cannot read the restart strategy of a worker group; its lost jobs follow the default',
      );
      return DEFAULT_WORKER_RESTART_STRATEGY;
    }
  }

  /** Call within the job's turn. Reports the job lost only if this worker here still held it, then the row is gone. */
  private async reportLost(
    workerId: string,
    job: HeldJob,
    reason: string,
    restartStrategy: WorkerRestartStrategy,
  ): Promise<boolean> {
    const store = this.streams.repositories.runningJobs;
    const holder = { workerId, controllerInstanceId: this.streams.identity.id };
    let row: RunningJobRecord | null;
    try {
      row = await store.get(job.taskRunId, job.attempt);
      if (row === null || row.workerId !== holder.workerId || row.controllerInstanceId !== holder.controllerInstanceId)
        return false;
      // Adopted (or finished) since the read: the conditional DELETE finds nothing and nothing is reported.
      if (!(await store.removeLostIfHeldBy(job.taskRunId, job.attempt, holder))) return false;
    } catch (error) {
      // The row stays in the running-job store, where the liveness coordinator finds it.
      this.logger.error(
        { workerId, taskRunId: job.taskRunId, attempt: job.attempt, error: message(error) },
        'could not check a job of an ended stream',
      );
      return false;
    }
    try {
      await this.streams.relay.workerLost(workerId, job, `worker ${workerId} lost: ${reason}`, restartStrategy);
      return true;
    } catch (error) {
      this.logger.error(
        { workerId, taskRunId: job.taskRunId, attempt: job.attempt, error: message(error) },
        'could not report a lost job',
      );
      // Put back, so the liveness coordinator still finds it once this controller is gone.
      await store
        .restoreUnreported(row)
        .catch((restoreError: unknown) =>
          this.logger.error(
            { workerId, taskRunId: job.taskRunId, attempt: job.attempt, error: message(restoreError) },
            'could not keep the record of an unreported lost job',
          ),
        );
      return false;
    }
  }
}

/** A fatal StreamError frame, then the call's final status: both from the one refusal table (`grpc-refusals.ts`). */
export function refuse(call: WorkerCall, kind: RefusalKind, reason: string): void {
  const { code, status } = refusalStatus(kind);
  call.write({ frame: { $case: 'error', value: { code, message: reason, fatal: true } } });
  // grpc-js turns an 'error' emitted on a server stream into the call's final status.
  call.emit('error', { code: status, details: reason });
}
