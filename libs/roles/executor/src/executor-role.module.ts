import { DynamicModule, Module } from '@nestjs/common';
import { createInProcessQueue, createKafkaQueue, type KafkaQueueOptions, type QueuePort } from '@lanner/queue';
import { applyMigrations, openRepositories } from '@lanner/repository';
import {
  AdapterLeases,
  type ExpressionConfig,
  expressionEnvs,
  queueProvider,
  repositoryProvider,
  RUNTIME_CONFIG,
  ServerRoleSettings,
} from '@lanner/runtime';
import type { RenderEnvironment } from '@lanner/state-machine';
import { DEFAULT_TOPIC_PARTITIONS } from '@lanner/frames';
import { executorOptions, type ExecutorOptions } from './lib/executor-options';
import { EXECUTOR_OPTIONS, ExecutorService } from './lib/executor.service';
import { LIVENESS_COORDINATOR_SETTINGS, LivenessCoordinator, livenessSettingsFromConfig } from './lib/liveness-coordinator';

/** The role config's timer interval, when the process's config has one (executor, standalone). */
function configuredTimerInterval(config: unknown): number | undefined {
  if (config === null || typeof config !== 'object') return undefined;
  const interval = (config as { timerIntervalMs?: unknown }).timerIntervalMs;
  return typeof interval === 'number' ? interval : undefined;
}

/** Kestra's `envs` and `globals` as the role's config sets them (LANNER_EXPRESSION_*); none without a config. */
function configuredEnvironment(config: unknown): RenderEnvironment {
  if (config === null || typeof config !== 'object') return {};
  const expression = (config as { expression?: ExpressionConfig }).expression;
  if (expression === undefined) return {};
  return { envs: expressionEnvs(expression.envPrefix), globals: expression.globals };
}

/**
 * The executor's Kafka member handles its partitions side by side: each execution
 * lives in one partition (key: execution id), so messages of different partitions
 * touch different executions, while one partition stays in order, stored before
 * committed. One partition at a time made every execution of the cluster wait on
 * the repository and Kafka round trips of all the others (docs/BENCHMARKS.md).
 */
function createExecutorKafkaQueue(options: Omit<KafkaQueueOptions, 'consumer'>): QueuePort {
  return createKafkaQueue({ ...options, consumer: { partitionsConsumedConcurrently: DEFAULT_TOPIC_PARTITIONS } });
}

/**
 * The executor role: the execution state machine, the worker-queue resolver
 * call, the delay loop, the Flow triggers evaluated when an execution ends (see
 * docs/scheduler.md), the liveness coordinator and the in-process system
 * worker of the `system` queue (started by ExecutorService). It consumes and produces execution events on the queue and keeps
 * its own execution state in the repository.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first.
 *
 * `options` override the defaults (the timer interval otherwise comes from the
 * role's config, LANNER_TIMER_INTERVAL_MS); integration specs also give topic
 * names and a consumer group of their own.
 */
@Module({})
export class ExecutorRoleModule {
  static forRoot(settings: ServerRoleSettings, options: Partial<ExecutorOptions> = {}): DynamicModule {
    return {
      module: ExecutorRoleModule,
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue: createExecutorKafkaQueue, createInProcessQueue }),
        {
          provide: EXECUTOR_OPTIONS,
          inject: [{ token: RUNTIME_CONFIG, optional: true }],
          useFactory: (config: unknown): ExecutorOptions =>
            executorOptions({
              ...options,
              timerIntervalMs: options.timerIntervalMs ?? configuredTimerInterval(config),
              environment: options.environment ?? configuredEnvironment(config),
              // The in-process queue forgets its messages when the process stops; Kafka keeps them.
              rebuildPendingWorkAtStart: options.rebuildPendingWorkAtStart ?? settings.queue.kind === 'in-process',
            }),
        },
        {
          provide: LIVENESS_COORDINATOR_SETTINGS,
          inject: [{ token: RUNTIME_CONFIG, optional: true }],
          useFactory: (config: unknown) => livenessSettingsFromConfig(config),
        },
        ExecutorService,
        LivenessCoordinator,
      ],
      exports: [ExecutorService],
    };
  }
}
