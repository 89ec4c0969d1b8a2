import { DynamicModule, Module } from '@nestjs/common';
import { createInProcessQueue, createKafkaQueue } from '@lanner/queue';
import { applyMigrations, openRepositories } from '@lanner/repository';
import { AdapterLeases, queueProvider, repositoryProvider, ServerRoleSettings } from '@lanner/runtime';
import { SCHEDULER_OPTIONS, schedulerOptions, type SchedulerOptions } from './lib/scheduler-options';
import { SchedulerService } from './lib/scheduler.service';

/**
 * The scheduler role: every second it claims the Schedule triggers that are
 * due (from the trigger table, indexed on the next date), fires each due date
 * once and advances the trigger, however many schedulers run (see
 * docs/scheduler.md). It reads flows and triggers from the repository and
 * announces the executions it creates on the queue, as the api does. Flow
 * triggers are evaluated by the executor when an execution ends, Webhook
 * triggers by the api; polling triggers are sent by this role to worker
 * queues as poll jobs and fire on their answers.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first.
 */
@Module({})
export class SchedulerRoleModule {
  static forRoot(settings: ServerRoleSettings, options: Partial<SchedulerOptions> = {}): DynamicModule {
    return {
      module: SchedulerRoleModule,
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue, createInProcessQueue }),
        { provide: SCHEDULER_OPTIONS, useValue: schedulerOptions(options) },
        SchedulerService,
      ],
      exports: [SchedulerService],
    };
  }
}
