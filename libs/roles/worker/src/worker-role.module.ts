import { DynamicModule, Module } from '@nestjs/common';
import { WorkerAgentService } from './worker-agent.service';
import { WORKER_SETTINGS, WorkerRoleSettings } from './worker-role.settings';

/**
 * The worker role: the agent that connects out to controllers and runs tasks.
 * It has no repository and no queue (lint forbids both); its only dependency
 * is a controller, which its readiness reports.
 */
@Module({})
export class WorkerRoleModule {
  static forRoot(settings: WorkerRoleSettings): DynamicModule {
    if (settings.controllers.length === 0) throw new Error('the worker needs at least one controller endpoint');
    return {
      module: WorkerRoleModule,
      providers: [{ provide: WORKER_SETTINGS, useValue: settings }, WorkerAgentService],
    };
  }
}
