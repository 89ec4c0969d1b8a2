import { taskRunFiles, type InternalStorage } from '@lanner/storage';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  durationFromMillis,
  JobState,
  LogLevel as FrameLogLevel,
  MAX_FRAME_BYTES,
  millisFromDuration,
  PROTOCOL_VERSION,
  WorkerFrame,
  type ControllerFrame,
  type Job,
  type JobRef,
  type JobResult,
} from '@lanner/frames';
import type { LogLevel } from '@lanner/model';
import {
  createTaskOutputCache,
  storageTaskOutputCache,
  createTaskRunner,
  runHttpPoll,
  runWithCache,
  type TaskOutcome,
  type TaskOutputCache,
  type TaskRunner,
  type TaskUser,
} from '@lanner/plugins';
import { errorSummary, type Endpoint } from '@lanner/runtime';
import { controllerChannel, type ControllerChannel } from './controller-channel';
import {
  ControllerDirectory,
  nextController,
  type ControllerRegistry,
  type ControllerResolver,
  type DiscoveryMode,
} from './controller-directory';
import { ControllerSession, SessionRefused } from './controller-session';
import { LogBatcher } from './log-batcher';
import { workerInstanceId } from './instance-id';
import { HEALTHY_STREAM_MS, reconnectDelayMs, recycleDelayMs } from './reconnect-backoff';
import { pollJobOf, runnableTaskOf } from './runnable-job';
import { systemResolver } from './system-resolver';
import { CredentialsLost, type WorkerCredentials } from './worker-credentials';

export interface WorkerAgentOptions {
  /** LANNER_WORKER_CONTROLLERS, read according to `discovery`. */
  readonly controllers: readonly Endpoint[];
  /** How the entries are resolved; STATIC when absent. */
  readonly discovery?: {
    readonly mode: DiscoveryMode;
    readonly refreshMs: number;
    readonly resolver?: ControllerResolver;
    /** STORAGE discovery: the controllers registered in internal storage. */
    readonly registry?: ControllerRegistry;
  };
  /** Transport security; plaintext when absent. */
  readonly channel?: ControllerChannel;
  /** The worker's identity; anonymous when absent. */
  readonly credentials?: WorkerCredentials;
  /** Called once the worker gave up because no controller will accept its credentials (its jobs are stopped by then). */
  readonly onFatal?: (message: string) => void;
  readonly slots: number;
  readonly name: string;
  readonly dataDir: string;
  /** Internal storage for the tasks' files; absent: a task with file properties fails saying so. */
  readonly storage?: InternalStorage;
  /** Return/OutputValues values larger than this are stored as files and output as URIs; absent: 1 MiB. */
  readonly outputInlineMaxBytes?: number;
  readonly logger: Logger;
  /** Jobs held beyond the running ones, so a freed slot starts the next job without a round trip. */
  readonly bufferedJobs?: number;
  /**
   * A job still running this long after it began is reported by a JobStarted
   * frame; one that ends sooner only by its JobResult (controllers of protocol
   * 1.2 and later; older ones get JobStarted at once). 0 reports every start.
   */
  readonly startedReportDelayMs?: number;
  readonly welcomeTimeoutMs?: number;
  readonly random?: () => number;
  /** The user script tasks run as; default: `nobody` (65534) when the worker runs as root, else the worker's own (null). */
  readonly taskUser?: TaskUser | null;
}

/** Debian's `nobody` and `nogroup`: a root worker's script tasks run as them (docs/task-isolation.md). */
export const DEFAULT_TASK_USER: TaskUser = { uid: 65534, gid: 65534 };

/** Tasks of a root worker get a user of their own; a worker that is not root cannot switch users. */
function defaultTaskUser(): TaskUser | null {
  return process.getuid?.() === 0 ? DEFAULT_TASK_USER : null;
}

const WORKER_VERSION = '0.1.0';
const DEFAULT_HEARTBEAT_MS = 3_000;
const DEFAULT_BUFFERED_JOBS = 1;
export const DEFAULT_STARTED_REPORT_DELAY_MS = 200;
const DEFAULT_WELCOME_TIMEOUT_MS = 10_000;
/** How long the last frames of a shutdown may take to reach the controller. */
const FINAL_FLUSH_MS = 5_000;
/** After the grace period, how long killed tasks get to report (the plugins kill a process group within 5 s). */
const KILL_SETTLE_MS = 10_000;
/** A refresh that got no answer is tried again after this long (while the access token is still valid). */
const REFRESH_RETRY_MS = 5_000;

const FRAME_LOG_LEVELS: Record<LogLevel, FrameLogLevel> = {
  TRACE: FrameLogLevel.TRACE,
  DEBUG: FrameLogLevel.DEBUG,
  INFO: FrameLogLevel.INFO,
  WARN: FrameLogLevel.WARN,
  ERROR: FrameLogLevel.ERROR,
};

const JOB_STATES: Record<TaskOutcome['state'], JobState> = {
  SUCCESS: JobState.SUCCESS,
  WARNING: JobState.WARNING,
  FAILED: JobState.FAILED,
  KILLED: JobState.KILLED,
};

/** An abort reason the plugins report as KILLED (anything but a timeout). */
class JobKilled extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JobKilled';
  }
}

interface HeldJob {
  readonly job: Job;
  readonly key: string;
  state: 'buffered' | 'running';
  readonly abort: AbortController;
  /** Why the job was stopped, when it was (kill or shutdown), for its result. */
  stoppedBecause?: string;
  settled?: Promise<void>;
  /** Sends the job's JobStarted if it is still running when it fires. */
  startedReport?: NodeJS.Timeout;
}

const jobKey = (taskRunId: string, attempt: number) => `${taskRunId}:${attempt}`;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal.aborted) return done();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
  });
}

/**
 * The worker agent: keeps one stream to a controller, runs the jobs it is sent
 * in a bounded pool (`slots` running + a small buffer), and grants credit only
 * for free room, so a controller can never hand it more than it can hold.
 *
 * Results of jobs that end while no stream is open wait and are sent on the
 * next stream (the controller is idempotent on task run + attempt, and the
 * new Hello lists the jobs still running), rather than being dropped.
 */
export class WorkerAgent {
  private readonly jobs = new Map<string, HeldJob>();
  private readonly unsentResults: JobResult[] = [];
  private readonly logs: LogBatcher;
  private readonly runner: TaskRunner;
  private readonly taskUser: TaskUser | null;
  private readonly cache: TaskOutputCache;
  private readonly dataDir: string;
  private readonly capacity: number;
  private readonly stopping = new AbortController();
  private session: ControllerSession | undefined;
  /** Credit granted on the current stream and not yet used by a Job. */
  private outstandingCredit = 0;
  private draining = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastProblem = 'not connected yet';
  private loop: Promise<void> | undefined;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly channel: ControllerChannel;
  private readonly directory: ControllerDirectory;
  private refreshTimer: NodeJS.Timeout | undefined;
  /** The persisted instance id an anonymous stream is known by (a stream with an access token is known by it). */
  private readonly instanceId: string;

  constructor(private readonly options: WorkerAgentOptions) {
    this.channel = options.channel ?? controllerChannel(undefined);
    const discovery = options.discovery ?? { mode: 'STATIC' as const, refreshMs: 30_000 };
    this.directory = new ControllerDirectory({
      mode: discovery.mode,
      entries: options.controllers,
      refreshMs: discovery.refreshMs,
      resolver: discovery.resolver ?? systemResolver,
      registry: discovery.registry,
      now: Date.now,
      onChange: (endpoints, problems) => {
        if (discovery.mode === 'STATIC') return;
        const addresses = endpoints.map((endpoint) => `${endpoint.host}:${endpoint.port}`);
        if (problems.length > 0)
          options.logger.warn({ controllers: addresses, problems }, 'controller discovery: some entries gave no address');
        else options.logger.info({ controllers: addresses }, 'controller discovery: controller list updated');
      },
    });
    this.dataDir = resolve(options.dataDir);
    this.instanceId = workerInstanceId(this.dataDir);
    this.taskUser = options.taskUser === undefined ? defaultTaskUser() : options.taskUser;
    this.runner = createTaskRunner({
      scripts: this.taskUser ? { runAs: this.taskUser } : {},
      ...(options.outputInlineMaxBytes === undefined ? {} : { outputInlineMaxBytes: options.outputInlineMaxBytes }),
    });
    // With internal storage the cache is shared by every worker on that store; without, it is this worker's own.
    this.cache = options.storage ? storageTaskOutputCache(options.storage) : createTaskOutputCache(this.dataDir);
    this.capacity = options.slots + (options.bufferedJobs ?? DEFAULT_BUFFERED_JOBS);
    this.logs = new LogBatcher(
      (entries) => this.session?.send({ $case: 'logBatch', value: { entries } }) ?? false,
      (count) => this.options.logger.warn({ dropped: count }, 'log lines dropped while no controller stream was open'),
    );
  }

  /** Starts connecting; returns at once. */
  start(): void {
    this.loop ??= this.connectLoop();
  }

  /** Whether a controller accepted this worker's stream (Welcome received) and it is still open. */
  get connected(): boolean {
    return this.session?.isOpen ?? false;
  }

  /** Why the worker has no stream, for readiness. */
  get problem(): string {
    return this.lastProblem;
  }

  /**
   * Two-phase shutdown: tell the controller (Draining), take no more work, let
   * running jobs finish for up to `graceMs`, then stop what still runs (KILLED),
   * flush results and logs, and close the stream.
   */
  async drain(reason: string, graceMs: number): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    const log = this.options.logger;
    log.info({ running: this.jobs.size, graceMs }, 'worker draining: no new jobs, waiting for running ones');
    this.session?.send({ $case: 'draining', value: { reason, gracePeriod: durationFromMillis(graceMs) } });
    if (!(await this.whenIdle(graceMs))) {
      log.warn({ running: this.jobs.size }, 'grace period over: stopping the jobs still running');
      for (const held of this.jobs.values()) this.stopJob(held, 'the worker shut down before the task ended');
      await this.whenIdle(KILL_SETTLE_MS);
    }
    this.logs.flush();
    this.stopping.abort();
    clearInterval(this.heartbeat);
    const session = this.session;
    if (session) {
      this.flushUnsentResults();
      await session.finish(FINAL_FLUSH_MS);
    }
    this.logs.stop();
    await this.loop;
    if (this.unsentResults.length > 0) {
      log.warn({ results: this.unsentResults.length }, 'results not delivered: no controller stream was open at shutdown');
    }
  }

  private async connectLoop(): Promise<void> {
    const { logger, credentials } = this.options;
    const random = this.options.random ?? Math.random;
    let failures = 0;
    let last: Endpoint | undefined;
    try {
      await credentials?.load();
    } catch (error) {
      if (error instanceof CredentialsLost) return this.failClosed(error.message);
      throw error;
    }
    while (!this.stopping.signal.aborted) {
      const attempt = await this.attempt(last);
      last = attempt.endpoint ?? last;
      if (attempt.fatal !== undefined) return this.failClosed(attempt.fatal);
      if (this.stopping.signal.aborted) break;
      // The next attempt goes to the next controller of the list, whatever ended this one.
      if (attempt.reconnectDelay !== undefined) {
        if (attempt.healthy) failures = 0;
        const delay = recycleDelayMs(attempt.reconnectDelay, random());
        logger.info({ delayMs: delay }, 'controller asked the worker to reconnect: moving to the next controller');
        await sleep(delay, this.stopping.signal);
        continue;
      }
      failures = attempt.healthy ? 1 : failures + 1;
      const delay = reconnectDelayMs(failures, random());
      logger.warn({ reason: attempt.why, delayMs: delay, failures }, 'no controller stream; reconnecting');
      await sleep(delay, this.stopping.signal);
    }
  }

  /** One connection attempt, from choosing the controller to the end of its stream. */
  private async attempt(last: Endpoint | undefined): Promise<{
    endpoint?: Endpoint;
    why: string;
    healthy: boolean;
    reconnectDelay?: number;
    fatal?: string;
  }> {
    const { credentials } = this.options;
    const { endpoints, problems } = await this.directory.current();
    const endpoint = nextController(endpoints, last);
    if (!endpoint) {
      const why = `no controller address: ${problems.join('; ') || 'the controller list is empty'}`;
      this.lastProblem = why;
      return { why, healthy: false };
    }
    let accessToken: string | undefined;
    try {
      accessToken = await credentials?.accessTokenFor(endpoint);
    } catch (error) {
      if (error instanceof CredentialsLost) return { endpoint, why: error.message, healthy: false, fatal: error.message };
      const why = `cannot get credentials: ${error instanceof Error ? error.message : String(error)}`;
      this.lastProblem = why;
      return { endpoint, why, healthy: false };
    }
    if (this.stopping.signal.aborted) return { endpoint, why: 'stopping', healthy: false };

    let reconnectDelay: number | undefined;
    let closeCode: grpc.status | undefined;
    const closed = new Promise<string>((onClosed) => {
      ControllerSession.open(
        endpoint,
        this.channel,
        accessToken,
        this.instanceId,
        this.hello(),
        this.options.welcomeTimeoutMs ?? DEFAULT_WELCOME_TIMEOUT_MS,
        {
          onFrame: (frame) => {
            if (frame.$case === 'reconnect') reconnectDelay = millisFromDuration(frame.value.delay) ?? 0;
            this.onFrame(frame);
          },
          onClosed: (why, code) => {
            closeCode = code;
            onClosed(why);
          },
        },
      ).then(
        (session) => this.onWelcome(session, endpoint),
        (error: Error) => {
          if (error instanceof SessionRefused) closeCode = error.code;
          onClosed(error.message);
        },
      );
    });
    const openedAt = Date.now();
    const why = await closed;
    const wasWelcomed = this.session !== undefined;
    const healthy = wasWelcomed && Date.now() - openedAt >= HEALTHY_STREAM_MS;
    this.onStreamClosed(why);
    // A refused or revoked access token: the next open gets a new one first.
    if (closeCode === grpc.status.UNAUTHENTICATED) credentials?.accessTokenRefused();
    return { endpoint, why, healthy, reconnectDelay };
  }

  /**
   * No controller will accept this worker any more: stop the jobs (their
   * results could not be delivered), say why once, and let the process end.
   */
  private async failClosed(message: string): Promise<void> {
    const log = this.options.logger;
    log.fatal(`the worker stops: ${message}`);
    this.lastProblem = message;
    this.stopping.abort();
    for (const held of this.jobs.values()) this.stopJob(held, 'the worker stopped: its credentials were refused');
    await this.whenIdle(KILL_SETTLE_MS);
    this.logs.stop();
    this.options.onFatal?.(message);
  }

  /** Refreshes the access token while a stream is open, so the next open (and a restart) finds a valid one. */
  private scheduleRefresh(endpoint: Endpoint): void {
    clearTimeout(this.refreshTimer);
    const credentials = this.options.credentials;
    const wait = credentials?.msUntilRefresh();
    if (!credentials || wait === undefined) return;
    this.refreshTimer = setTimeout(() => {
      credentials.refreshIfDue(endpoint).then(
        () => {
          if (this.session?.isOpen) this.scheduleRefresh(endpoint);
        },
        (error: Error) => {
          if (error instanceof CredentialsLost) {
            this.options.logger.error(`${error.message}; the worker stops at its next reconnect`);
            return;
          }
          this.options.logger.warn({ reason: error.message }, 'could not refresh the access token; trying again');
          clearTimeout(this.refreshTimer);
          if (this.session?.isOpen) this.refreshTimer = setTimeout(() => this.scheduleRefresh(endpoint), REFRESH_RETRY_MS);
        },
      );
    }, wait);
  }

  private hello() {
    // The jobs whose results wait to be sent are listed too: the controller adopts them, then takes their results.
    const runningJobs: JobRef[] = [
      ...[...this.jobs.values()].map(({ job }) => ({ taskRunId: job.taskRunId, attempt: job.attempt })),
      ...this.unsentResults.map((result) => ({ taskRunId: result.taskRunId, attempt: result.attempt })),
    ];
    return {
      protocolVersion: { ...PROTOCOL_VERSION },
      workerName: this.options.name,
      slots: this.options.slots,
      labels: { host: hostname() },
      workerVersion: WORKER_VERSION,
      runningJobs,
    };
  }

  private onWelcome(session: ControllerSession, endpoint: Endpoint): void {
    if (this.stopping.signal.aborted) return session.abandon();
    this.session = session;
    this.outstandingCredit = 0;
    this.lastProblem = '';
    this.options.credentials?.accessTokenAccepted();
    const { welcome } = session;
    this.options.logger.info(
      { workerId: welcome.workerId, group: welcome.workerGroupId, controller: welcome.controllerId, address: session.address },
      'connected to a controller',
    );
    const heartbeatMs = millisFromDuration(welcome.heartbeatInterval) || DEFAULT_HEARTBEAT_MS;
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      const runningJobs = [...this.jobs.values()].map(({ job }) => ({ taskRunId: job.taskRunId, attempt: job.attempt }));
      session.send({ $case: 'heartbeat', value: { sentAt: new Date(), runningJobs } });
    }, heartbeatMs);
    if (this.draining) {
      session.send({ $case: 'draining', value: { reason: 'shutting down', gracePeriod: undefined } });
    }
    this.flushUnsentResults();
    this.logs.flush();
    this.grantCredit();
    this.scheduleRefresh(endpoint);
  }

  private onStreamClosed(why: string): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    if (this.session) this.options.logger.warn({ reason: why, running: this.jobs.size }, 'controller stream closed');
    this.session = undefined;
    this.outstandingCredit = 0;
    this.lastProblem = why;
  }

  private onFrame(frame: NonNullable<ControllerFrame['frame']>): void {
    switch (frame.$case) {
      case 'job':
        return this.accept(frame.value);
      case 'kill': {
        const held = this.jobs.get(jobKey(frame.value.taskRunId, frame.value.attempt));
        if (held) this.stopJob(held, frame.value.reason ? `killed: ${frame.value.reason}` : 'killed');
        return;
      }
      case 'reconnect': {
        // Recycling: no more credit here, what is ready goes out, then the worker half-closes and moves on.
        this.options.logger.info({ reason: frame.value.reason }, 'controller ends the stream');
        const session = this.session;
        if (!session) return;
        this.logs.flush();
        this.flushUnsentResults();
        void session.finish(FINAL_FLUSH_MS);
        return;
      }
      case 'error':
        this.options.logger.warn(
          { code: frame.value.code, fatal: frame.value.fatal },
          `controller refused a frame: ${frame.value.message}`,
        );
        return;
      default:
        // ConfigChanged: the controller's ledger applies subscriptions; nothing changes on this side yet.
        return;
    }
  }

  private accept(job: Job): void {
    const key = jobKey(job.taskRunId, job.attempt);
    const log = this.options.logger.child({ taskRunId: job.taskRunId, attempt: job.attempt, executionId: job.executionId });
    if (this.jobs.has(key)) {
      log.info('duplicate job ignored: it is already held');
      return;
    }
    if (this.draining || this.outstandingCredit <= 0 || this.jobs.size >= this.capacity) {
      // A controller that ignores credit would overload the worker; the job is refused, never queued.
      log.warn('job refused: the worker granted no credit for it');
      this.sendResult(
        this.failedWithoutRunning(job, 'the worker refused the job: it had granted no credit for it (it may be draining)'),
      );
      return;
    }
    this.outstandingCredit -= 1;
    this.jobs.set(key, { job, key, state: 'buffered', abort: new AbortController() });
    this.startWaitingJobs();
  }

  private startWaitingJobs(): void {
    let running = [...this.jobs.values()].filter((held) => held.state === 'running').length;
    for (const held of this.jobs.values()) {
      if (running >= this.options.slots) return;
      if (held.state !== 'buffered') continue;
      held.state = 'running';
      running += 1;
      held.settled = this.run(held);
    }
  }

  private async run(held: HeldJob): Promise<void> {
    const { job } = held;
    const log = this.options.logger.child({ taskRunId: job.taskRunId, attempt: job.attempt, executionId: job.executionId });
    let result: JobResult;
    try {
      result = await this.outcomeOf(held, log);
    } catch (error) {
      // Only the worker's own storage can throw here (the task runner never does); the slot must still free.
      log.error(errorSummary(error), 'job could not run on this worker');
      result = this.failedWithoutRunning(
        job,
        'the worker could not prepare the job (its internal storage failed); see the worker log',
      );
    }
    // Logs go before the result, so a reader that sees the result has the task's whole log.
    this.logs.flush();
    clearTimeout(held.startedReport);
    this.jobs.delete(held.key);
    this.startWaitingJobs();
    // The slot this job freed is granted in its result (one frame, not two) to a controller that reads it there.
    if (!this.sendResult(result, this.controllerTakesCreditInResults())) this.grantCredit();
    if (this.jobs.size === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
  }

  private async outcomeOf(held: HeldJob, log: Logger): Promise<JobResult> {
    const { job } = held;
    const startedAt = new Date();
    let result: JobResult;
    if (held.abort.signal.aborted) {
      result = { ...this.failedWithoutRunning(job, held.stoppedBecause ?? 'killed'), state: JobState.KILLED };
    } else if (job.deadline !== undefined && job.deadline.getTime() <= startedAt.getTime()) {
      result = {
        ...this.failedWithoutRunning(job, 'the job reached its deadline before a worker could start it'),
        deadlinePassed: true,
      };
    } else if (pollJobOf(job) !== undefined) {
      result = await this.pollOutcome(held, startedAt, log);
    } else {
      const read = runnableTaskOf(job);
      if (!read.ok) {
        result = this.failedWithoutRunning(job, read.reason);
      } else {
        this.reportStarted(held, startedAt);
        log.info({ taskId: job.taskId }, 'job started');
        const workingDirectory = await this.workingDirectoryFor(job);
        const outcome = await runWithCache({
          runner: this.runner,
          cache: this.cache,
          task: read.task,
          scope: { tenantId: job.tenantId || undefined, namespace: job.namespace, flowId: job.flowId },
          context: {
            signal: held.abort.signal,
            workingDirectory,
            now: () => new Date(),
            ...(this.options.storage && job.tenantId
              ? {
                  files: taskRunFiles(this.options.storage, job.tenantId, {
                    namespace: job.namespace,
                    flowId: job.flowId,
                    executionId: job.executionId,
                    taskId: job.taskId,
                    taskRunId: job.taskRunId,
                  }),
                }
              : {}),
            log: (level, message) =>
              this.logs.add({
                taskRunId: job.taskRunId,
                attempt: job.attempt,
                level: FRAME_LOG_LEVELS[level],
                timestamp: new Date(),
                message,
              }),
          },
        });
        await rm(workingDirectory, { recursive: true, force: true }).catch(() => undefined);
        const error = outcome.state === 'KILLED' ? (held.stoppedBecause ?? outcome.error ?? 'killed') : (outcome.error ?? '');
        result = {
          taskRunId: job.taskRunId,
          attempt: job.attempt,
          state: JOB_STATES[outcome.state],
          outputsJson: JSON.stringify(outcome.outputs),
          errorMessage: error,
          cacheHit: outcome.cacheHit,
          deadlinePassed: false,
          startedAt,
          endedAt: new Date(),
          credit: 0,
        };
        log.info({ state: outcome.state }, 'job ended');
      }
    }
    return result;
  }

  /** A polling trigger's poll: the request and its response condition, run here for the scheduler. */
  private async pollOutcome(held: HeldJob, startedAt: Date, log: Logger): Promise<JobResult> {
    const { job } = held;
    const read = pollJobOf(job);
    if (read === undefined || !read.ok) return this.failedWithoutRunning(job, read?.reason ?? 'not a trigger evaluation');
    this.reportStarted(held, startedAt);
    const timeoutMs = millisFromDuration(job.timeout);
    const signal =
      timeoutMs !== undefined && timeoutMs > 0
        ? AbortSignal.any([held.abort.signal, AbortSignal.timeout(timeoutMs)])
        : held.abort.signal;
    const outcome = await runHttpPoll(read.poll, { signal, now: new Date() });
    log.info({ triggerId: job.taskId, state: outcome.state }, 'trigger evaluated');
    return {
      taskRunId: job.taskRunId,
      attempt: job.attempt,
      state: JOB_STATES[outcome.state],
      outputsJson: JSON.stringify(outcome.outputs),
      errorMessage: outcome.state === 'FAILED' ? outcome.error : '',
      cacheHit: false,
      deadlinePassed: false,
      startedAt,
      endedAt: new Date(),
      credit: 0,
    };
  }

  private stopJob(held: HeldJob, reason: string): void {
    if (held.abort.signal.aborted) return;
    held.stoppedBecause = reason;
    held.abort.abort(new JobKilled(reason));
    if (held.state === 'buffered') {
      // Never started: it ends here, without running.
      held.state = 'running';
      held.settled = this.run(held);
    }
  }

  private failedWithoutRunning(job: Job, reason: string): JobResult {
    const now = new Date();
    return {
      taskRunId: job.taskRunId,
      attempt: job.attempt,
      state: JobState.FAILED,
      outputsJson: '{}',
      errorMessage: reason,
      cacheHit: false,
      startedAt: now,
      endedAt: now,
      deadlinePassed: false,
      credit: 0,
    };
  }

  /**
   * The job's working directory. Under a task user it is a fresh folder of that
   * user's outside the data dir (which the task may not read, nor even pass
   * through); otherwise `<data dir>/jobs/<task run>-<attempt>`.
   */
  private async workingDirectoryFor(job: Job): Promise<string> {
    const name = `${job.taskRunId.replace(/[^A-Za-z0-9._-]/g, '_')}-${job.attempt}`;
    if (!this.taskUser) {
      const workingDirectory = join(this.dataDir, 'jobs', name);
      await mkdir(workingDirectory, { recursive: true });
      return workingDirectory;
    }
    const workingDirectory = await mkdtemp(join(tmpdir(), `lanner-job-${name.slice(0, 80)}-`));
    await chown(workingDirectory, this.taskUser.uid, this.taskUser.gid);
    await chmod(workingDirectory, 0o700);
    return workingDirectory;
  }

  /** A result that would not fit in a frame becomes a FAILED result that says so (the slot must still free). */
  private fitToFrame(result: JobResult): JobResult {
    const limit = this.session?.welcome.maxFrameBytes || MAX_FRAME_BYTES;
    const size = WorkerFrame.encode({ frame: { $case: 'jobResult', value: result } }).finish().byteLength;
    if (size <= limit) return result;
    return {
      ...result,
      state: JobState.FAILED,
      outputsJson: '{}',
      errorMessage: `the task's result (${size} bytes) exceeds the ${limit}-byte frame limit; write large outputs to internal storage and output their URI`,
      cacheHit: false,
    };
  }

  /**
   * Sends the result, with the credit for the room now free when `withCredit`;
   * true when that credit went out with it. A result kept for the next stream
   * carries none: credit belongs to the stream it was granted on.
   */
  private sendResult(result: JobResult, withCredit = false): boolean {
    const fitted = this.fitToFrame(result);
    const credit = withCredit ? this.freeRoom() : 0;
    if (this.session?.send({ $case: 'jobResult', value: { ...fitted, credit } })) {
      this.outstandingCredit += credit;
      return withCredit;
    }
    this.unsentResults.push({ ...fitted, credit: 0 });
    return false;
  }

  /** Whether the controller of the current stream speaks 1.2 or later (credit in results, late JobStarted). */
  private controllerTakesCreditInResults(): boolean {
    const version = this.session?.welcome.protocolVersion;
    return version !== undefined && version.major === 1 && version.minor >= 2;
  }

  /** JobStarted at once for an older controller, else only if the job still runs after the delay. */
  private reportStarted(held: HeldJob, startedAt: Date): void {
    const { job } = held;
    const send = () =>
      this.session?.send({ $case: 'jobStarted', value: { taskRunId: job.taskRunId, attempt: job.attempt, startedAt } });
    const delayMs = this.options.startedReportDelayMs ?? DEFAULT_STARTED_REPORT_DELAY_MS;
    if (delayMs <= 0 || !this.controllerTakesCreditInResults()) {
      send();
      return;
    }
    held.startedReport = setTimeout(() => {
      if (this.jobs.get(held.key) === held) send();
    }, delayMs);
    // A pending report must not keep a stopping process alive.
    held.startedReport.unref();
  }

  private flushUnsentResults(): void {
    while (this.unsentResults.length > 0 && this.session?.isOpen) {
      const result = this.unsentResults.shift();
      if (result) this.session.send({ $case: 'jobResult', value: result });
    }
  }

  /** Grants the controller credit for the room not yet promised: free room minus credit still outstanding. */
  private grantCredit(): void {
    const grant = this.freeRoom();
    if (grant <= 0 || !this.session) return;
    this.outstandingCredit += grant;
    this.session.send({ $case: 'credit', value: { slots: grant } });
  }

  /** Room not yet promised to the controller: free room minus credit still outstanding (0 while draining). */
  private freeRoom(): number {
    if (!this.session?.isOpen || this.draining) return 0;
    return Math.max(0, this.capacity - this.jobs.size - this.outstandingCredit);
  }

  private whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.jobs.size === 0) return Promise.resolve(true);
    return new Promise((done) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      this.idleWaiters.push(() => (clearTimeout(timer), done(true)));
    });
  }
}
