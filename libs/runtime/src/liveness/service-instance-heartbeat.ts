import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { CommonConfig } from '../config/load-config';
import { describeFailure } from '../health/describe-failure';
import { REPOSITORIES, RUNTIME_CONFIG } from '../runtime.tokens';
import { DEFAULT_LIVENESS_TIMINGS, type LivenessTimings } from './liveness-timings';
import { ServiceInstanceIdentity } from './service-instance-identity';

/** The instance states this process writes about itself (the coordinator writes the others). */
type OwnState = 'RUNNING' | 'TERMINATING' | 'TERMINATED';

/**
 * The part of @lanner/repository's `serviceInstances` the heartbeat uses. The
 * runtime cannot import the repository library (see RepositoryAdapterLibrary).
 */
export interface ServiceInstanceStore {
  register(
    instance: {
      readonly id: string;
      readonly role: ServiceInstanceIdentity['role'];
      readonly host: string;
      readonly metadata?: Record<string, string | number>;
    },
    at: Date,
  ): Promise<unknown>;
  /** Returns the state after the write; rejects with a `NotFound` error when the row is gone. */
  recordHeartbeat(id: string, at: Date): Promise<string>;
  setState(id: string, state: OwnState, at: Date): Promise<unknown>;
}

interface RepositoriesWithInstances {
  readonly serviceInstances: ServiceInstanceStore;
  ping(): Promise<void>;
}

export const LIVENESS_TIMINGS = Symbol('lanner.liveness-timings');

/**
 * sysexits' EX_TEMPFAIL: the exit code of a process that found itself declared
 * NOT_RUNNING (its work was handed to others while it was silent). Its
 * supervisor restarts it; the new process registers as a new instance.
 */
export const EXIT_DECLARED_NOT_RUNNING = 75;

/** How the heartbeat stops the process (a spec replaces it). */
export const PROCESS_EXIT = Symbol('lanner.process-exit');
export type ProcessExit = (code: number) => void;

/**
 * Registers this server process in `service_instances` once the application is
 * up, heartbeats every few seconds, and on a graceful stop records TERMINATING
 * (first thing) and TERMINATED (after the roles stopped, before the repository
 * closes). A database that is down never stops the process: each failed write
 * is logged once per outage and tried again on the next beat. A beat that
 * finds this instance NOT_RUNNING (the coordinator gave it up while it was
 * silent) stops the process with exit code 75 and an error line saying why.
 *
 * Provided by the process's root module (see runRole), whose shutdown hooks run
 * before the role modules' ones. It finds the repositories the role modules
 * provide; a process without them (the worker) registers nothing.
 */
@Injectable()
export class ServiceInstanceHeartbeat implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(ServiceInstanceHeartbeat.name);
  private readonly timings: LivenessTimings;
  private repositories: RepositoriesWithInstances | undefined;
  private timer: NodeJS.Timeout | undefined;
  private beat: Promise<void> = Promise.resolve();
  private registered = false;
  private failing = false;
  private stopping = false;
  private declaredNotRunning = false;
  private readonly exit: ProcessExit;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly identity: ServiceInstanceIdentity,
    @Inject(RUNTIME_CONFIG) private readonly config: CommonConfig,
    @Optional() @Inject(LIVENESS_TIMINGS) timings?: Partial<LivenessTimings>,
    @Optional() @Inject(PROCESS_EXIT) exit?: ProcessExit,
  ) {
    this.timings = { ...DEFAULT_LIVENESS_TIMINGS, ...timings };
    this.exit = exit ?? ((code) => process.exit(code));
  }

  onApplicationBootstrap(): void {
    if (this.config.role === 'worker') return;
    this.repositories = this.findRepositories();
    if (this.repositories === undefined) {
      this.logger.warn({ role: this.config.role }, 'no repository in this process: service instance not registered');
      return;
    }
    this.beat = this.tick();
    this.timer = setInterval(() => {
      // Beats never overlap: a slow database delays the next one instead of piling them up.
      this.beat = this.beat.then(() => this.tick());
    }, this.timings.heartbeatIntervalMs);
    this.timer.unref();
  }

  /** Resolves once the latest beat settled (registration included). For specs. */
  settled(): Promise<void> {
    return this.beat;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.repositories === undefined) return;
    this.stopping = true;
    await this.beat;
    await this.writeState('TERMINATING');
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.repositories === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beat;
    await this.writeState('TERMINATED');
  }

  private findRepositories(): RepositoriesWithInstances | undefined {
    try {
      // Every role module of the process provides the same pooled repositories; any one will do.
      return this.moduleRef.get<RepositoriesWithInstances>(REPOSITORIES, { strict: false });
    } catch {
      return undefined;
    }
  }

  private async tick(): Promise<void> {
    const repositories = this.repositories;
    if (repositories === undefined) return;
    const { id, role, host } = this.identity;
    const at = new Date();
    try {
      if (!this.registered) {
        await repositories.serviceInstances.register(
          { id, role, host, metadata: { pid: process.pid, httpPort: this.config.http.port } },
          at,
        );
        this.registered = true;
        this.logger.log({ instanceId: id, role }, 'service instance registered');
        if (this.stopping) await repositories.serviceInstances.setState(id, 'TERMINATING', at);
      } else {
        const state = await repositories.serviceInstances.recordHeartbeat(id, at);
        if (state === 'NOT_RUNNING') return this.stopDeclaredNotRunning();
      }
      if (this.failing) this.logger.log({ instanceId: id }, 'heartbeats recorded again');
      this.failing = false;
    } catch (error) {
      // Purged while silent: register again on the next beat.
      if (error instanceof Error && error.name === 'NotFound') this.registered = false;
      this.reportFailure(error);
      // Until the repository first opens, only its ping tries to connect again.
      await repositories.ping().catch(() => undefined);
    }
  }

  /**
   * The liveness coordinator gave this instance up while it was silent (paused,
   * or cut off from the database): its running jobs were re-queued, another
   * process may hold what it held. Acting on would be split brain, so the
   * process stops at once, without a graceful shutdown (which would act), and
   * says why; its supervisor starts a new instance.
   */
  private stopDeclaredNotRunning(): void {
    if (this.declaredNotRunning) return;
    this.declaredNotRunning = true;
    clearInterval(this.timer);
    this.timer = undefined;
    const { id, role } = this.identity;
    this.logger.error(
      { instanceId: id, role, exitCode: EXIT_DECLARED_NOT_RUNNING },
      `this instance was declared NOT_RUNNING by the liveness coordinator while it was silent (paused, or cut off from the database) and its work was handed over: stopping now with exit code ${EXIT_DECLARED_NOT_RUNNING} so that a fresh instance takes its place`,
    );
    this.exit(EXIT_DECLARED_NOT_RUNNING);
  }

  private async writeState(state: OwnState): Promise<void> {
    if (this.repositories === undefined || !this.registered || this.declaredNotRunning) return;
    try {
      await this.repositories.serviceInstances.setState(this.identity.id, state, new Date());
      this.logger.log({ instanceId: this.identity.id, state }, `service instance ${state.toLowerCase()}`);
    } catch (error) {
      this.reportFailure(error);
    }
  }

  private reportFailure(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(
      { instanceId: this.identity.id, reason: describeFailure(error) },
      'service instance heartbeat not recorded; retrying every beat',
    );
  }
}
