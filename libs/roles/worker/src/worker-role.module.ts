import { DynamicModule, Module } from '@nestjs/common';
import { WorkerThreadService } from './thread/worker-thread.service';
import { WorkerAgentService } from './worker-agent.service';
import { WORKER_SETTINGS, WorkerRoleSettings } from './worker-role.settings';

/**
 * The worker role: the agent that connects out to controllers and runs tasks.
 * It has no repository and no queue (lint forbids both); its only dependency
 * is a controller, which its readiness reports.
 */
@Module({})
export class WorkerRoleModule {
  /**
   * `onOwnThread`: the agent runs on a worker thread of its own (standalone's
   * local worker, beside every other role) instead of the process's event loop.
   */
  static forRoot(settings: WorkerRoleSettings, options: { onOwnThread?: boolean } = {}): DynamicModule {
    if (settings.controllers.length === 0) throw new Error('the worker needs at least one controller endpoint');
    return {
      module: WorkerRoleModule,
      providers: [
        { provide: WORKER_SETTINGS, useValue: settings },
        options.onOwnThread === true ? WorkerThreadService : WorkerAgentService,
      ],
    };
  }
}
