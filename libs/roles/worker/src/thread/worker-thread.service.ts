import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { DependencyDownError, type LogLevel, PROCESS_LOGGER, ReadinessChecks } from '@lanner/runtime';
import { EXIT_CREDENTIALS_REFUSED } from '../worker-agent.factory';
import { WORKER_SETTINGS, WorkerRoleSettings } from '../worker-role.settings';
import type { FromWorkerThread, ToWorkerThread, WorkerThreadData } from './worker-thread.protocol';

/** How long readiness waits for the thread to say whether it has a stream. */
export const THREAD_STATUS_TIMEOUT_MS = 2_000;

/**
 * The worker role on a thread of its own (standalone's local worker): the
 * agent, its gRPC stream and its task runner get their own event loop, and
 * so a core of their own, beside the roles on the process's loop. The
 * process sees the same role as WorkerAgentService gives it: readiness is
 * "a controller accepted the stream", and closing drains the worker (running
 * jobs get the grace period) before the thread ends. A thread that ends by
 * itself ends the process with its code, as a worker process would end.
 */
@Injectable()
export class WorkerThreadService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private thread: Worker | undefined;
  private stopping = false;
  private nextStatusId = 1;
  private readonly statusWaiters = new Map<number, (status: { connected: boolean; problem: string }) => void>();
  private drained: (() => void) | undefined;

  constructor(
    private readonly readiness: ReadinessChecks,
    @Inject(WORKER_SETTINGS) private readonly settings: WorkerRoleSettings,
    @Inject(PROCESS_LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.readiness.register('controllers', async () => {
      const status = await this.status();
      if (!status.connected) throw new DependencyDownError(`no stream to a controller: ${status.problem}`);
    });
  }

  onApplicationBootstrap(): void {
    const data: WorkerThreadData = {
      settings: this.settings,
      logRole: String(this.logger.bindings()['role'] ?? 'worker'),
      logLevel: this.logger.level as LogLevel,
    };
    const thread = new Worker(join(__dirname, 'worker-thread.entry.js'), { workerData: data });
    thread.on('message', (message: FromWorkerThread) => {
      if (message.type === 'drained') {
        this.drained?.();
        return;
      }
      const waiter = this.statusWaiters.get(message.id);
      this.statusWaiters.delete(message.id);
      waiter?.({ connected: message.connected, problem: message.problem });
    });
    thread.on('error', (error) => {
      const reason = error.message.split('\n')[0];
      this.logger.fatal({ component: 'worker-thread', error: error.name, reason }, 'the worker thread failed');
    });
    thread.on('exit', (code) => {
      this.thread = undefined;
      this.drained?.();
      if (this.stopping) return;
      this.logger.fatal({ component: 'worker-thread', code }, 'the worker thread ended: stopping the process');
      process.exit(code === EXIT_CREDENTIALS_REFUSED ? code : 1);
    });
    this.thread = thread;
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    const thread = this.thread;
    if (thread === undefined) return;
    const done = new Promise<void>((resolve) => (this.drained = resolve));
    this.send(thread, { type: 'drain', reason: 'the worker is shutting down', graceMs: this.settings.drainGraceMs });
    await done;
    // What the drained agent left open (a channel, a timer) must not keep the thread, or the process, alive.
    await thread.terminate();
  }

  private status(): Promise<{ connected: boolean; problem: string }> {
    const thread = this.thread;
    if (thread === undefined) return Promise.resolve({ connected: false, problem: 'the worker thread is not running' });
    const id = this.nextStatusId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.statusWaiters.delete(id);
        resolve({ connected: false, problem: `the worker thread did not answer within ${THREAD_STATUS_TIMEOUT_MS} ms` });
      }, THREAD_STATUS_TIMEOUT_MS);
      this.statusWaiters.set(id, (status) => {
        clearTimeout(timer);
        resolve(status);
      });
      this.send(thread, { type: 'status', id });
    });
  }

  private send(thread: Worker, message: ToWorkerThread): void {
    thread.postMessage(message);
  }
}
