import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE, HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import { createInProcessQueue, createKafkaQueue } from '@lanner/queue';
import { applyMigrations, openRepositories } from '@lanner/repository';
import { createInternalStorage } from '@lanner/storage';
import { AdapterLeases, queueProvider, repositoryProvider, ServerRoleSettings } from '@lanner/runtime';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from './api-role.options';
import { ApiStartup } from './api-startup';
import { API_TOPICS, apiTopics } from './api-topics';
import { ApiTokensController } from './api-tokens/api-tokens.controller';
import { ApiTokensService } from './api-tokens/api-tokens.service';
import { AuditLogsController, InstanceAuditLogsController } from './audit/audit-logs.controller';
import { AuditAnswerInterceptor, AuditTrail, AuditTrailGuard } from './audit/audit-trail';
import { AccessGuard } from './auth/access.guard';
import { ServedTenants } from './auth/served-tenants';
import { ApiTokenAuth } from './auth/api-token-auth';
import { ApiTokenGuard } from './auth/api-token.guard';
import { ExecutionUpdatesFeed } from './executions/execution-updates.feed';
import { DeadLettersController } from './dead-letters/dead-letters.controller';
import { DeadLettersService } from './dead-letters/dead-letters.service';
import { ExecutionsController } from './executions/executions.controller';
import { ExecutionFilesService, StorageRetention } from './executions/execution-files.service';
import { ExecutionsService, INTERNAL_STORAGE } from './executions/executions.service';
import { FlowsController } from './flows/flows.controller';
import { TriggersController } from './triggers/triggers.controller';
import { WebhooksController } from './executions/webhooks.controller';
import { FlowSourceParser } from './flows/flow-source-parser';
import { ParsedFlowCache } from './flows/parsed-flow-cache';
import { FlowsService } from './flows/flows.service';
import { FlowChangeBroadcasts } from './flows/flow-change-broadcasts';
import { ProblemFilter } from './http/problem.filter';
import { StorableTextPipe } from './http/storable-text.pipe';
import { WebUi } from './http/web-ui';
import { LogsController } from './logs/logs.controller';
import { MaintenanceHeaderInterceptor } from './maintenance/maintenance-header.interceptor';
import { MaintenanceController } from './maintenance/maintenance.controller';
import { MaintenanceService } from './maintenance/maintenance.service';
import { NamespaceFilesController } from './namespaces/namespace-files.controller';
import { NamespacesController } from './namespaces/namespaces.controller';
import { ApiDocs } from './openapi/api-docs';
import { DeclarativeSetup } from './setup/declarative-setup';
import { InstanceAdminGuard } from './topology/instance-admin.guard';
import { InstanceServicesController } from './topology/instance-services.controller';
import { RegistrationTokensService } from './topology/registration-tokens.service';
import { TopologyBroadcasts } from './topology/topology-broadcasts';
import { TopologyService } from './topology/topology.service';
import { WorkerFleetService } from './topology/worker-fleet.service';
import { WorkerGroupsController } from './topology/worker-groups.controller';
import { WorkerQueuesController } from './topology/worker-queues.controller';
import { AuthController } from './users/auth.controller';
import { UserSessions } from './users/user-sessions';
import { TenantsController } from './users/tenants.controller';
import { UsersController } from './users/users.controller';

/**
 * The api role: the REST API (`/api/v1`), the web UI, SSE live updates, authentication and admin of queues, groups and tokens. It reads the repository and writes admin changes to it; it puts submissions, kills and resumes on the queue.
 *
 * Only wiring lives here. The adapters are leased from the process's adapter
 * pool, so standalone's roles share one repository and one in-process queue,
 * and they are closed after the HTTP server, queue first.
 */
@Module({})
export class ApiRoleModule {
  static forRoot(settings: ServerRoleSettings, options: ApiRoleOptions = {}): DynamicModule {
    return {
      module: ApiRoleModule,
      controllers: [
        FlowsController,
        ExecutionsController,
        LogsController,
        WorkerQueuesController,
        WorkerGroupsController,
        InstanceServicesController,
        MaintenanceController,
        DeadLettersController,
        TriggersController,
        WebhooksController,
        ApiTokensController,
        NamespacesController,
        NamespaceFilesController,
        AuthController,
        UsersController,
        TenantsController,
        // Before the tenant route, whose `:tenant` would match `instance`.
        InstanceAuditLogsController,
        AuditLogsController,
      ],
      providers: [
        AdapterLeases,
        repositoryProvider(settings.database, { openRepositories, applyMigrations }),
        queueProvider(settings.queue, { createKafkaQueue, createInProcessQueue }),
        { provide: API_ROLE_OPTIONS, useValue: options },
        { provide: INTERNAL_STORAGE, useValue: options.storage ? createInternalStorage(options.storage) : null },
        { provide: API_TOPICS, useValue: apiTopics(options.topicPrefix) },
        // Global, because body-parser and unknown-route errors never reach a controller's filters;
        // it answers only under /api/ and leaves other routes to Nest's default handling.
        { provide: APP_FILTER, useClass: ProblemFilter },
        // Every route's path parameters, query and JSON body: text PostgreSQL cannot store is a 400 naming where.
        { provide: APP_PIPE, useClass: StorableTextPipe },
        // Every route declaring @Audit: one entry on lanner.audit once answered, refusals included (so before the access guard).
        { provide: APP_GUARD, useClass: AuditTrailGuard },
        // Every /api route: the permission it declares (@RequirePermission / @Public), from the verified token.
        { provide: APP_GUARD, useClass: AccessGuard },
        { provide: APP_INTERCEPTOR, useClass: AuditAnswerInterceptor },
        // While in maintenance mode, every answer carries `Lanner-Maintenance: true`.
        { provide: APP_INTERCEPTOR, useClass: MaintenanceHeaderInterceptor },
        MaintenanceService,
        AuditTrail,
        ApiTokensService,
        ApiTokenAuth,
        ServedTenants,
        UserSessions,
        ApiTokenGuard,
        DeadLettersService,
        ExecutionUpdatesFeed,
        ExecutionsService,
        ExecutionFilesService,
        StorageRetention,
        FlowSourceParser,
        { provide: ParsedFlowCache, useFactory: () => new ParsedFlowCache() },
        FlowsService,
        FlowChangeBroadcasts,
        InstanceAdminGuard,
        TopologyBroadcasts,
        TopologyService,
        RegistrationTokensService,
        WorkerFleetService,
        DeclarativeSetup,
        ApiStartup,
        WebUi,
        {
          provide: ApiDocs,
          inject: [HttpAdapterHost, ModulesContainer],
          useFactory: (adapterHost: HttpAdapterHost, modules: ModulesContainer) =>
            new ApiDocs(adapterHost, modules, [ApiRoleModule]),
        },
      ],
    };
  }
}
