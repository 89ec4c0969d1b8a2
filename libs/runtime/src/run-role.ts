import 'reflect-metadata';
import { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as NestPinoLogger } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { ConfigError, loadRoleConfig, RoleConfig, StartupRefused } from './config/load-config';
import { Role } from './config/roles';
import { createProcessLogger } from './logging/process-logger';
import { RuntimeModule } from './runtime.module';
import { ServiceInstanceHeartbeat } from './liveness/service-instance-heartbeat';
import { applyHttpServerLimits } from './http-server-limits';

/** sysexits' EX_CONFIG: tells an operator the process refused its configuration, not that it crashed. */
export const EXIT_BAD_CONFIG = 78;

/** Hooks a role's composition uses for what lives outside the Nest application (standalone's PostgreSQL). */
export interface RoleProcess {
  readonly logger: PinoLogger;
  /** Runs after the application closed (HTTP, queue, repository), in reverse order of registration. */
  afterClose(step: () => Promise<void>): void;
  /** Runs once the HTTP server listens, with its base URL. */
  onReady(announce: (baseUrl: string) => void): void;
}

export type RoleComposition<R extends Role> = (
  config: RoleConfig<R>,
  process: RoleProcess,
) => DynamicModule[] | Promise<DynamicModule[]>;

/**
 * What a log line may say about an error: its first line, with the password of any
 * URL in it masked. Never the stack, nor the code frame or query some clients add
 * on the lines below; the error's code (EADDRINUSE, 28P01, ...) goes in a field.
 */
export function describeProcessFailure(error: unknown): { message: string; code?: string } {
  const text = error instanceof Error ? error.message : String(error);
  const firstLine =
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  const message =
    firstLine.replace(/(\/\/[^/:@\s]*:)[^@\s]*@/g, '$1[redacted]@') || (error instanceof Error ? error.name : 'unknown error');
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[A-Za-z0-9_]{2,40}$/.test(code) ? { message, code } : { message };
}

function baseUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/**
 * Runs one Lanner process: loads and validates the role's config (refusing to
 * start on a bad variable), composes the role modules, serves HTTP on
 * LANNER_HTTP_PORT, and on SIGTERM/SIGINT shuts down gracefully (HTTP, then
 * queue consumers, then the repository, then `afterClose` steps) and exits 0.
 */
export async function runRole<R extends Role>(role: R, compose: RoleComposition<R>): Promise<void> {
  let config: RoleConfig<R>;
  try {
    config = loadRoleConfig(role);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`lanner ${role}: ${problem}\n`);
    process.exit(EXIT_BAD_CONFIG);
  }

  const logger = createProcessLogger(role, config.logLevel);
  const closeSteps: (() => Promise<void>)[] = [];
  const readyAnnouncements: ((url: string) => void)[] = [];
  const roleProcess: RoleProcess = {
    logger,
    afterClose: (step) => closeSteps.push(step),
    onReady: (announce) => readyAnnouncements.push(announce),
  };
  let app: INestApplication | undefined;

  const closeEverything = async (): Promise<void> => {
    // Each step runs even when an earlier one failed: an embedded PostgreSQL must not outlive its process.
    let failed = false;
    if (app) {
      await app.close().catch((error: unknown) => {
        failed = true;
        const { message, code } = describeProcessFailure(error);
        logger.error({ code }, `application did not close cleanly: ${message}`);
      });
    }
    for (const step of closeSteps.reverse()) {
      await step().catch((error: unknown) => {
        failed = true;
        const { message, code } = describeProcessFailure(error);
        logger.error({ code }, `shutdown step failed: ${message}`);
      });
    }
    if (failed) throw new Error('shutdown incomplete');
  };

  // Nest's enableShutdownHooks re-raises the signal after closing (exit 143) and
  // leaves no room for steps after the application closed, so the signals are handled here;
  // app.close() runs the same lifecycle hooks.
  let stopping = false;
  let started = false;
  let pendingSignal: NodeJS.Signals | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    logger.info({ signal }, `lanner ${role} shutting down`);
    closeEverything().then(
      () => {
        logger.info(`lanner ${role} stopped`);
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    stopping = true;
    // A signal during startup is honoured once startup settled, so nothing half-opened is left behind.
    if (started) shutdown(signal);
    else pendingSignal = signal;
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  try {
    const roleModules = await compose(config, roleProcess);
    class LannerProcessModule {}
    app = await NestFactory.create(
      // The heartbeat sits in the root module: its shutdown hooks run before the role modules' (TERMINATING first, TERMINATED before the repository closes).
      {
        module: LannerProcessModule,
        imports: [RuntimeModule.forRoot(config, logger), ...roleModules],
        providers: [ServiceInstanceHeartbeat],
      },
      // abortOnError false: a failing provider must reach the catch below, not abort() with a core dump.
      { bufferLogs: true, abortOnError: false },
    );
    app.useLogger(app.get(NestPinoLogger));
    app.flushLogs();
    applyHttpServerLimits(app.getHttpServer(), config.http.limits);
    await app.listen(config.http.port, config.http.host);
  } catch (error) {
    await closeEverything().catch(() => undefined);
    if (error instanceof StartupRefused) {
      logger.fatal({ problems: error.problems }, `lanner ${role} refused to start: ${error.message}`);
      for (const problem of error.problems) process.stderr.write(`lanner ${role}: ${problem}\n`);
      process.exit(EXIT_BAD_CONFIG);
    }
    const { message, code } = describeProcessFailure(error);
    logger.fatal({ code }, `lanner ${role} failed to start: ${message}`);
    process.exit(1);
  }
  started = true;
  if (pendingSignal) return shutdown(pendingSignal);

  const url = baseUrl(config.http.host, config.http.port);
  logger.info({ url, port: config.http.port }, `lanner ${role} ready`);
  for (const announce of readyAnnouncements) announce(url);
}
