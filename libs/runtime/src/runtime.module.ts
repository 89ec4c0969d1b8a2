import { DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { AdapterPool } from './adapters/adapter-pool';
import { CommonConfig } from './config/load-config';
import { HealthController } from './health/health.controller';
import { ReadinessChecks } from './health/readiness-checks';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsRegistry } from './metrics/metrics-registry';
import { ServiceInstanceIdentity } from './liveness/service-instance-identity';
import { PROCESS_LOGGER, RUNTIME_CONFIG } from './runtime.tokens';

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
          pinoHttp: {
            logger,
            // Probes hit the health endpoints every few seconds; logging them drowns everything else.
            autoLogging: { ignore: (request) => (request.url ?? '').startsWith('/health/') || request.url === '/metrics' },
          },
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
