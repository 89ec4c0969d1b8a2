import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { AdapterPool } from './adapters/adapter-pool';
import { CommonConfig } from './config/load-config';
import { requestLogLevel } from './logging/request-log-level';
import { HealthController } from './health/health.controller';
import { ReadinessChecks } from './health/readiness-checks';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsRegistry } from './metrics/metrics-registry';
import { ServiceInstanceIdentity } from './liveness/service-instance-identity';
import { PROCESS_LOGGER, RUNTIME_CONFIG } from './runtime.tokens';

/** The routes of this module, served to probes and Prometheus, never to users. */
const UNLOGGED_ROUTES = [
  { path: 'health/live', method: RequestMethod.GET },
  { path: 'health/ready', method: RequestMethod.GET },
  { path: 'metrics', method: RequestMethod.GET },
];

/**
 * What every role process has, whatever its role: the config, the process
 * logger behind Nest's Logger and HTTP request logging, the health endpoints,
 * the readiness registry, the adapter pool and the metrics registry (`/metrics`). Global, so role modules inject
 * these without importing it.
 */
@Module({})
export class RuntimeModule {
  static forRoot(config: CommonConfig, logger: PinoLogger): DynamicModule {
    return {
      module: RuntimeModule,
      global: true,
      imports: [
        LoggerModule.forRoot({
          // Reads that succeed (polls, `?wait` answers, UI refreshes) at debug: see requestLogLevel.
          pinoHttp: { logger, customLogLevel: requestLogLevel },
          // Probes and scrapes skip the request logger altogether. Logging them would drown
          // everything else, and its request context (an AsyncLocalStorage) would, from the
          // first probe on, make every promise of the process pay for async hooks: a role
          // that serves nothing but probes (controller, worker, executor...) would run its
          // queue, gRPC and database work 2-3 times slower per promise for no log line.
          exclude: UNLOGGED_ROUTES,
        }),
        // Terminus would log every failed probe at error level; HealthController logs one warning per failing dependency instead.
        TerminusModule.forRoot({ logger: false }),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: RUNTIME_CONFIG, useValue: config },
        { provide: PROCESS_LOGGER, useValue: logger },
        ReadinessChecks,
        AdapterPool,
        { provide: MetricsRegistry, useValue: new MetricsRegistry(config.role) },
        // One service instance per process (liveness); the controller records its running jobs under its id.
        { provide: ServiceInstanceIdentity, useValue: new ServiceInstanceIdentity(config.role) },
      ],
      exports: [RUNTIME_CONFIG, PROCESS_LOGGER, ReadinessChecks, AdapterPool, MetricsRegistry, ServiceInstanceIdentity],
    };
  }
}
