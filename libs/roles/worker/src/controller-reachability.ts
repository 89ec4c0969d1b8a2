import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { connect } from 'node:net';
import { CommonConfig, DependencyDownError, Endpoint, ReadinessChecks, RUNTIME_CONFIG } from '@lanner/runtime';
import { WORKER_SETTINGS, WorkerRoleSettings } from './worker-role.settings';

function label(endpoint: Endpoint): string {
  return endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}

/** Resolves when a TCP connection to the endpoint opens; the connection is closed at once. */
function answers(endpoint: Endpoint, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: endpoint.host, port: endpoint.port });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new DependencyDownError(`${label(endpoint)} (no answer)`));
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(new DependencyDownError(`${label(endpoint)} (${error.code ?? 'unreachable'})`));
    });
  });
}

/**
 * The worker's readiness: at least one of its controllers answers. Until the
 * gRPC session exists (a later issue) a TCP connect is the whole check, which
 * is what an operator needs to see: whether the worker can reach a controller.
 */
@Injectable()
export class ControllerReachability implements OnModuleInit {
  constructor(
    private readonly readiness: ReadinessChecks,
    @Inject(WORKER_SETTINGS) private readonly settings: WorkerRoleSettings,
    @Inject(RUNTIME_CONFIG) private readonly config: CommonConfig,
  ) {}

  onModuleInit(): void {
    if (this.settings.controllers.length === 0) return;
    this.readiness.register('controllers', () => this.anyControllerAnswers());
  }

  private async anyControllerAnswers(): Promise<void> {
    try {
      await Promise.any(this.settings.controllers.map((endpoint) => answers(endpoint, this.config.readyTimeoutMs)));
    } catch (error) {
      const reasons = error instanceof AggregateError ? error.errors.map((reason: Error) => reason.message) : [];
      throw new DependencyDownError(`no controller answered: ${reasons.join(', ')}`);
    }
  }
}
