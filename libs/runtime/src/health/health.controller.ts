import { Controller, Get, Inject, Logger } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { CommonConfig } from '../config/load-config';
import { RUNTIME_CONFIG } from '../runtime.tokens';
import { describeFailure, withTimeout } from './describe-failure';
import { DependencyCheck, ReadinessChecks } from './readiness-checks';

/**
 * `/health/live`: the process is up (a failing liveness probe restarts it, so
 * it never depends on anything outside the process). `/health/ready`: every
 * dependency of the role answers; 503 names the ones that do not.
 */
@Controller('health')
export class HealthController {
  private readonly logger = new Logger(HealthController.name);

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly readiness: ReadinessChecks,
    @Inject(RUNTIME_CONFIG) private readonly config: CommonConfig,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check(
      this.readiness.entries().map(
        ([dependency, check]) =>
          () =>
            this.probe(dependency, check),
      ),
    );
  }

  private async probe(dependency: string, check: DependencyCheck): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(dependency);
    try {
      await withTimeout(check(), this.config.readyTimeoutMs);
      return indicator.up();
    } catch (error) {
      const message = describeFailure(error);
      this.logger.warn({ dependency, reason: message }, 'dependency not ready');
      return indicator.down({ message });
    }
  }
}
