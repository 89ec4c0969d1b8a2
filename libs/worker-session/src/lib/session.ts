import {
  checkPeerProtocolVersion,
  ErrorCode,
  jobMessageId,
  type Hello,
  type ControllerFrame,
  type JobRef,
  type JobResult,
  type JobStarted,
  type WorkerFrame,
} from '@lanner/frames';

/**
 * The rules of one worker stream on a controller, as a functional core:
 * `nextSession(session, input, now)` gives the next session and the effects
 * the controller carries out (send a frame, credit the worker, publish, write
 * the running-job store, wait, close the stream). The controller's stream
 * adapter feeds it the worker's frames, ticks, broadcasts and the store's
 * answers; nothing here reads a clock or does I/O.
 */

/** A stream silent for this many heartbeat intervals is ended and its jobs wait for adoption. */
export const SILENT_INTERVALS_BEFORE_END = 5;
/** A started job missing from this many consecutive heartbeats (and without a result) is lost. */
export const MISSED_HEARTBEATS_BEFORE_LOST = 2;

/** The cadences the rules count in (the controller's settings). */
export interface SessionTimings {
  /** How often the worker heartbeats (sent to it in Welcome). */
  readonly heartbeatIntervalMs: number;
  /** An anonymous worker's adoption waits at most this long for the old stream of a job to end. */
  readonly anonymousAdoptionWaitMs: number;
  /** How often, during that wait, the old stream is checked again. */
  readonly anonymousAdoptionRecheckMs: number;
  /** After the stream ends, how long its jobs wait for their worker to adopt them elsewhere. */
  readonly adoptionGraceMs: number;
}

/** Who the stream belongs to (from its verified access token, or anonymous). */
export interface SessionIdentity {
  readonly workerId: string;
  readonly workerGroupId: string;
  /** null for an anonymous worker. */
  readonly registrationTokenId: string | null;
}

export interface Session {
  readonly identity: SessionIdentity;
  readonly timings: SessionTimings;
  /** open: frames are handled; ended: the stream is gone, its jobs wait out the adoption grace. */
  readonly phase: 'open' | 'ended';
  /** When the worker's last frame came (epoch ms). */
  readonly lastHeardAt: number;
  /** Consecutive heartbeats that did not list a started job, by task run + attempt. */
  readonly missedHeartbeats: Readonly<Record<string, number>>;
  /** The anonymous adoption's wait for old streams ends here (epoch ms): one wait for all the jobs of Hello. */
  readonly adoptionDeadline: number;
  /** Once the stream ended holding jobs: those still waiting to be adopted or reported lost, by task run + attempt. */
  readonly waitingJobs: readonly string[];
  /**
   * The jobs the worker listed in the Hello of a newer stream here (set from its first such Hello on): what its
   * process runs, so a job of this stream it left out is no longer run by it.
   */
  readonly listedOnReconnect: ReadonlySet<string> | undefined;
}

/** What the rules read of the jobs the worker holds here (its session's bookkeeping, owned by the controller). */
export interface HeldJobs {
  readonly size: number;
  /** A job sent and not finished: whether the worker reported it started. */
  held(ref: JobRef): { readonly started: boolean } | undefined;
  /** A job held, or finished a short while ago. */
  known(ref: JobRef): { readonly finished: boolean } | undefined;
  /** Every job held, by task run + attempt (`jobMessageId`). */
  entries(): Iterable<readonly [string, { readonly started: boolean }]>;
}

/** A running-job row as adoption reads it. */
export interface AdoptionRow {
  readonly workerId: string;
  readonly workerQueueId: string;
}

export type WorkerFrameCase = NonNullable<WorkerFrame['frame']>;
export type ControllerFrameCase = NonNullable<ControllerFrame['frame']>;

export type SessionInput =
  /** A frame came from the worker (before it is handled: frames are handled one after the other). */
  | { readonly kind: 'heard' }
  /** A frame of the worker after Hello, handled now. */
  | { readonly kind: 'frame'; readonly frame: WorkerFrameCase; readonly jobs: HeldJobs }
  /** The silence check. */
  | { readonly kind: 'tick' }
  /** Adoption (Hello.running_jobs), the store's row of one listed job. */
  | {
      readonly kind: 'adoption-row';
      readonly ref: JobRef;
      readonly row: AdoptionRow | null;
      readonly servedQueues: ReadonlySet<string>;
    }
  /** Whether the stream another worker's row is recorded for is still connected (anonymous adoption). */
  | { readonly kind: 'holder-connected'; readonly ref: JobRef; readonly connected: boolean }
  /** The store's conditional re-pointing of the row to this stream: false when another writer came first. */
  | { readonly kind: 'reassigned'; readonly ref: JobRef; readonly ok: boolean }
  /** The store could not be read or written for this job's adoption. */
  | { readonly kind: 'adoption-failed'; readonly ref: JobRef }
  /** The stream is ending (whoever ended it): no more adoption waits, no silence check. */
  | { readonly kind: 'closed' }
  /** The ended stream held these jobs (by task run + attempt); the group's restart strategy as read now. */
  | { readonly kind: 'left-holding'; readonly heldJobs: readonly string[]; readonly restartStrategy: string }
  /**
   * The same worker (same worker id) opened a newer stream here and its Hello was accepted, listing these jobs as
   * running (or finished with the result still to send). Given to the older streams of that worker, open or ended.
   */
  | { readonly kind: 'worker-reconnected'; readonly runningJobs: readonly JobRef[] }
  /**
   * The adoption grace is over, for one job the ended stream held (asked in the job's turn, so no adoption
   * of it runs meanwhile): whether another stream here holds it now, and whether the controller is stopping.
   */
  | {
      readonly kind: 'grace-over';
      readonly key: string;
      readonly heldByAnotherStream: boolean;
      readonly controllerClosing: boolean;
    };

export type SessionEffect =
  | { readonly kind: 'send'; readonly frame: ControllerFrameCase }
  /** The worker grants this many more slots (0: only the slot a result freed). */
  | { readonly kind: 'grant-credit'; readonly slots: number }
  | { readonly kind: 'drain'; readonly reason: string }
  /** Forget jobs finished long enough ago (heartbeat cadence). */
  | { readonly kind: 'forget-finished' }
  | { readonly kind: 'publish-started'; readonly frame: JobStarted }
  | { readonly kind: 'publish-result'; readonly frame: JobResult }
  | { readonly kind: 'relay'; readonly frame: Extract<WorkerFrameCase, { $case: 'logBatch' | 'metricBatch' }> }
  /** The worker stopped running the job without a result: its slot frees and it is reported lost (if still held here). */
  | { readonly kind: 'lost'; readonly key: string; readonly reason: string }
  | { readonly kind: 'close'; readonly reason: string; readonly byController: boolean }
  /** Adoption: ask whether the stream the row is recorded for is still connected, after `afterMs`. */
  | { readonly kind: 'check-holder'; readonly ref: JobRef; readonly afterMs: number }
  /** Adoption: re-point the row to this stream (one conditional UPDATE). */
  | { readonly kind: 'reassign'; readonly ref: JobRef }
  /** Adoption: the row is this stream's; the job holds a slot here. */
  | { readonly kind: 'adopt'; readonly ref: JobRef }
  /** Adoption: not this stream's; after Welcome the worker is told and the job stopped (`notAdoptedFrames`). */
  | { readonly kind: 'not-adopted'; readonly ref: JobRef; readonly why: string }
  /** Wait this long, then give `grace-over`. */
  | { readonly kind: 'wait-grace'; readonly ms: number }
  /**
   * Report the job lost, unless its row no longer names this worker here (a conditional DELETE decides). `reason`:
   * why, when not only because the stream ended (the adapter then names the stream's end).
   */
  | { readonly kind: 'report-lost'; readonly key: string; readonly reason?: string };

export interface SessionStep {
  readonly session: Session;
  readonly effects: readonly SessionEffect[];
}

const NOTHING: readonly SessionEffect[] = [];

/** Why a stream's first frame is refused: the kind names the gRPC status (the controller's refusal table). */
export interface HelloRefusal {
  readonly refusal: 'out-of-order-frame' | 'unsupported-protocol' | 'invalid-argument';
  readonly reason: string;
}

/** The first frame of a stream: a Hello of a compatible protocol with at least one slot, or why not. */
export function helloVerdict(first: WorkerFrameCase): { readonly hello: Hello } | HelloRefusal {
  if (first.$case !== 'hello') {
    return { refusal: 'out-of-order-frame', reason: `the first frame must be hello, got ${first.$case}` };
  }
  const hello = first.value;
  const version = checkPeerProtocolVersion(hello.protocolVersion);
  if (!version.compatible) return { refusal: 'unsupported-protocol', reason: version.reason };
  if (!Number.isInteger(hello.slots) || hello.slots < 1) {
    return { refusal: 'invalid-argument', reason: `hello.slots must be at least 1, got ${hello.slots}` };
  }
  return { hello };
}

/** The session of a stream whose Hello was accepted at `now`. */
export function openSession(identity: SessionIdentity, timings: SessionTimings, now: number): Session {
  return {
    identity,
    timings,
    phase: 'open',
    lastHeardAt: now,
    missedHeartbeats: {},
    adoptionDeadline: now + timings.anonymousAdoptionWaitMs,
    waitingJobs: [],
    listedOnReconnect: undefined,
  };
}

/** The frames that tell a worker a job it listed in Hello is not adopted, and stop it. */
export function notAdoptedFrames(ref: JobRef, why: string): ControllerFrameCase[] {
  const id = jobMessageId(ref.taskRunId, ref.attempt);
  return [
    {
      $case: 'error',
      value: {
        code: ErrorCode.UNKNOWN_JOB,
        message: `job ${id} is not adopted by this stream: ${why}; it is stopped`,
        fatal: false,
      },
    },
    {
      $case: 'kill',
      value: { taskRunId: ref.taskRunId, attempt: ref.attempt, reason: `not adopted after the reconnect: ${why}` },
    },
  ];
}

/** Why a stream silent this long is ended. */
export function silenceReason(timings: SessionTimings): string {
  return `no frame from the worker for ${(SILENT_INTERVALS_BEFORE_END * timings.heartbeatIntervalMs) / 1000} s`;
}

export const LOST_BY_HEARTBEATS_REASON = `the worker stopped reporting it as running for ${MISSED_HEARTBEATS_BEFORE_LOST} heartbeats and sent no result`;

/** Why a job of an ended stream is lost before the adoption grace is over. */
export const NOT_LISTED_ON_RECONNECT_REASON =
  'the worker connected again without listing it as running (it restarted, or never got the job)';

export function nextSession(session: Session, input: SessionInput, now: number): SessionStep {
  switch (input.kind) {
    case 'heard':
      return { session: session.phase === 'open' ? { ...session, lastHeardAt: now } : session, effects: NOTHING };
    case 'tick':
      return tick(session, now);
    case 'frame':
      return frame(session, input.frame, input.jobs);
    case 'adoption-row':
      return { session, effects: [adoptionVerdict(session, input.ref, input.row, input.servedQueues)] };
    case 'holder-connected':
      return { session, effects: [holderVerdict(session, input.ref, input.connected, now)] };
    case 'reassigned':
      return {
        session,
        effects: [
          input.ok
            ? { kind: 'adopt', ref: input.ref }
            : {
                kind: 'not-adopted',
                ref: input.ref,
                why: 'its result was just recorded, or it was just reported lost or adopted by another stream',
              },
        ],
      };
    case 'adoption-failed':
      return {
        session,
        effects: [{ kind: 'not-adopted', ref: input.ref, why: 'the controller could not check its running-job record' }],
      };
    case 'closed':
      return { session: session.phase === 'ended' ? session : { ...session, phase: 'ended' }, effects: NOTHING };
    case 'left-holding':
      return leftHolding(session, input.heldJobs, input.restartStrategy);
    case 'worker-reconnected':
      return workerReconnected(session, input.runningJobs);
    case 'grace-over': {
      // Reported at the worker's reconnect already, or never held: nothing more to wait for.
      if (!session.waitingJobs.includes(input.key)) return { session, effects: NOTHING };
      const waiting = { ...session, waitingJobs: session.waitingJobs.filter((key) => key !== input.key) };
      // A stopping controller leaves the rows to the liveness coordinator; a job adopted here is not lost.
      return {
        session: waiting,
        effects: input.controllerClosing || input.heldByAnotherStream ? NOTHING : [{ kind: 'report-lost', key: input.key }],
      };
    }
  }
}

function tick(session: Session, now: number): SessionStep {
  if (session.phase !== 'open') return { session, effects: NOTHING };
  if (now - session.lastHeardAt <= SILENT_INTERVALS_BEFORE_END * session.timings.heartbeatIntervalMs) {
    return { session, effects: NOTHING };
  }
  return {
    session: { ...session, phase: 'ended' },
    effects: [{ kind: 'close', reason: silenceReason(session.timings), byController: false }],
  };
}

function leftHolding(session: Session, heldJobs: readonly string[], restartStrategy: string): SessionStep {
  const closed: Session = { ...session, phase: 'ended', waitingJobs: [...new Set(heldJobs)] };
  // The worker already came back here without some of them: those are lost now, the others wait.
  const { session: left, effects } = lostUnlessListed(closed);
  if (left.waitingJobs.length === 0) return { session: left, effects };
  // IMMEDIATELY: the group's jobs do not wait for their worker to come back and adopt them.
  const ms = restartStrategy === 'IMMEDIATELY' ? 0 : session.timings.adoptionGraceMs;
  return { session: left, effects: [...effects, { kind: 'wait-grace', ms }] };
}

/**
 * A newer stream of the same worker said Hello here. Its list is what the worker's
 * process runs now: a job this stream held that the list leaves out is not running
 * anywhere (the worker restarted, or the job never reached it), so it is lost now
 * rather than after the adoption grace, which only waits for a worker that may still
 * list it. Kept for a stream still open, whose jobs are judged when it ends.
 */
function workerReconnected(session: Session, runningJobs: readonly JobRef[]): SessionStep {
  const listed = new Set(runningJobs.map((ref) => jobMessageId(ref.taskRunId, ref.attempt)));
  // Several reconnects: a job is still run only if every list since the first named it.
  const known = session.listedOnReconnect;
  const listedOnReconnect = known === undefined ? listed : new Set([...known].filter((key) => listed.has(key)));
  return lostUnlessListed({ ...session, listedOnReconnect });
}

function lostUnlessListed(session: Session): SessionStep {
  const listed = session.listedOnReconnect;
  if (listed === undefined || session.waitingJobs.length === 0) return { session, effects: NOTHING };
  const lost = session.waitingJobs.filter((key) => !listed.has(key));
  if (lost.length === 0) return { session, effects: NOTHING };
  return {
    session: { ...session, waitingJobs: session.waitingJobs.filter((key) => listed.has(key)) },
    effects: lost.map((key) => ({ kind: 'report-lost', key, reason: NOT_LISTED_ON_RECONNECT_REASON })),
  };
}

function unknownJob(key: string): SessionEffect {
  return {
    kind: 'send',
    frame: {
      $case: 'error',
      value: { code: ErrorCode.UNKNOWN_JOB, message: `this worker holds no job ${key} on this controller`, fatal: false },
    },
  };
}

function withoutMissed(session: Session, key: string): Session {
  if (!(key in session.missedHeartbeats)) return session;
  const { [key]: _gone, ...missedHeartbeats } = session.missedHeartbeats;
  return { ...session, missedHeartbeats };
}

function frame(session: Session, received: WorkerFrameCase, jobs: HeldJobs): SessionStep {
  switch (received.$case) {
    case 'credit':
      return { session, effects: [{ kind: 'grant-credit', slots: received.value.slots }] };
    case 'heartbeat':
      return heartbeat(session, received.value.runningJobs, jobs);
    case 'jobStarted': {
      const key = jobMessageId(received.value.taskRunId, received.value.attempt);
      const job = jobs.held(received.value);
      if (!job) return { session, effects: [unknownJob(key)] };
      // Idempotent on (task run, attempt): a duplicate JobStarted changes nothing.
      return { session, effects: job.started ? NOTHING : [{ kind: 'publish-started', frame: received.value }] };
    }
    case 'jobResult': {
      const key = jobMessageId(received.value.taskRunId, received.value.attempt);
      const known = jobs.known(received.value);
      if (!known || known.finished) {
        // The credit a result carries (since 1.2) counts whatever the result itself is worth; a duplicate changes nothing else.
        const effects: SessionEffect[] = [];
        if (received.value.credit > 0) effects.push({ kind: 'grant-credit', slots: received.value.credit });
        if (!known) effects.push(unknownJob(key));
        return { session, effects };
      }
      // As a Credit frame right after the result: granted once the result is recorded and its slot freed.
      return {
        session: withoutMissed(session, key),
        effects: [
          { kind: 'publish-result', frame: received.value },
          { kind: 'grant-credit', slots: received.value.credit },
        ],
      };
    }
    case 'logBatch':
    case 'metricBatch':
      return { session, effects: [{ kind: 'relay', frame: received }] };
    case 'draining':
      return { session, effects: [{ kind: 'drain', reason: received.value.reason }] };
    case 'hello':
      return {
        session,
        effects: [
          {
            kind: 'send',
            frame: {
              $case: 'error',
              value: { code: ErrorCode.INVALID_FRAME, message: 'hello was already received on this stream', fatal: false },
            },
          },
        ],
      };
  }
}

/**
 * Heartbeat.running_jobs against the jobs held: a started job the worker
 * stopped reporting for MISSED_HEARTBEATS_BEFORE_LOST heartbeats in a row, and
 * whose result never came, is lost.
 */
function heartbeat(session: Session, runningJobs: readonly JobRef[], jobs: HeldJobs): SessionStep {
  const forget: SessionEffect = { kind: 'forget-finished' };
  // An idle worker (most of them, most of the time) holds nothing to compare: nothing is allocated for it.
  if (jobs.size === 0) {
    const idle = Object.keys(session.missedHeartbeats).length === 0 ? session : { ...session, missedHeartbeats: {} };
    return { session: idle, effects: [forget] };
  }
  const running = new Set(runningJobs.map((ref) => jobMessageId(ref.taskRunId, ref.attempt)));
  const missedHeartbeats: Record<string, number> = {};
  const effects: SessionEffect[] = [forget];
  for (const [key, job] of jobs.entries()) {
    if (!job.started || running.has(key)) continue;
    const missed = (session.missedHeartbeats[key] ?? 0) + 1;
    if (missed < MISSED_HEARTBEATS_BEFORE_LOST) missedHeartbeats[key] = missed;
    else effects.push({ kind: 'lost', key, reason: LOST_BY_HEARTBEATS_REASON });
  }
  return { session: { ...session, missedHeartbeats }, effects };
}

/**
 * Hello.running_jobs after a reconnect, one job: a worker with a token adopts
 * only rows recorded for its own worker id; an anonymous one its own rows at
 * once, and another worker's row of its group's queues once that row's stream
 * is no longer connected. A job whose row is gone (result recorded, or
 * reported lost) is not adopted.
 */
function adoptionVerdict(session: Session, ref: JobRef, row: AdoptionRow | null, served: ReadonlySet<string>): SessionEffect {
  if (row === null) return { kind: 'not-adopted', ref, why: 'its result was already recorded or it was reported lost' };
  if (!served.has(row.workerQueueId)) {
    return {
      kind: 'not-adopted',
      ref,
      why: `its worker queue '${row.workerQueueId}' is not served by worker group '${session.identity.workerGroupId}'`,
    };
  }
  if (row.workerId === session.identity.workerId) return { kind: 'reassign', ref };
  if (session.identity.registrationTokenId !== null)
    return { kind: 'not-adopted', ref, why: 'it is recorded for another worker' };
  return { kind: 'check-holder', ref, afterMs: 0 };
}

/** An ending stream has until the adoption deadline to finish ending; it is checked again every recheck interval. */
function holderVerdict(session: Session, ref: JobRef, connected: boolean, now: number): SessionEffect {
  if (!connected) return { kind: 'reassign', ref };
  if (now >= session.adoptionDeadline || session.phase !== 'open') {
    return { kind: 'not-adopted', ref, why: 'the worker stream it is recorded for is still connected' };
  }
  return {
    kind: 'check-holder',
    ref,
    afterMs: Math.min(session.timings.anonymousAdoptionRecheckMs, session.adoptionDeadline - now),
  };
}
