import { applyDecorators, Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { AuditLogQuery, AuditLogRecord, AuditLogScope, Repositories, TenantRepositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { z } from 'zod';
import { type AuthenticatedRequest, namespacePrefixOf } from '../auth/access.guard';
import { RequirePermission } from '../auth/route-access.decorator';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';
import { InvalidRequest } from '../http/api-errors';
import { PageQuerySchema } from '../http/query';
import { parseWith } from '../http/request-body';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';

const instant = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time such as 2026-12-01T00:00:00Z' });
const text = z.string().min(1).max(512);
const AuditLogQuerySchema = PageQuerySchema.extend({
  actor: text.optional(),
  action: text.optional(),
  resourceType: text.optional(),
  resourceId: text.optional(),
  namespace: text.optional(),
  outcome: z.enum(['success', 'failure', 'denied']).optional(),
  correlationId: text.optional(),
  from: instant.optional(),
  to: instant.optional(),
}).strict();
const InstanceAuditLogQuerySchema = AuditLogQuerySchema.extend({
  // `instance`: the entries of instance routes only (they have no tenant).
  tenant: text.optional(),
}).strict();

const AUDIT_ENTRY_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    tenant: { type: 'string', nullable: true, description: 'null on instance routes' },
    occurredAt: { type: 'string', format: 'date-time' },
    action: { type: 'string', example: 'flow.update' },
    resourceType: { type: 'string', example: 'flow' },
    resourceId: { type: 'string', nullable: true, example: 'company.team/hello' },
    namespace: { type: 'string', nullable: true },
    actor: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: ['api-token', 'user', 'anonymous'] },
        id: { type: 'string', nullable: true, description: "The API token's id or the user's id" },
        name: { type: 'string', nullable: true, description: "The API token's name or the username" },
      },
    },
    clientIp: { type: 'string', nullable: true },
    userAgent: { type: 'string', nullable: true },
    outcome: { type: 'string', enum: ['success', 'failure', 'denied'] },
    status: { type: 'integer', description: 'The HTTP status answered' },
    correlationId: { type: 'string', nullable: true },
  },
};
const AUDIT_PAGE_SCHEMA: SchemaObject = {
  type: 'object',
  properties: { results: { type: 'array', items: AUDIT_ENTRY_SCHEMA }, total: { type: 'integer' } },
};

function auditEntryView(entry: AuditLogRecord) {
  return {
    id: entry.id,
    tenant: entry.tenantId,
    occurredAt: entry.occurredAt.toISOString(),
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    namespace: entry.namespace,
    actor: entry.actor,
    clientIp: entry.clientIp,
    userAgent: entry.userAgent,
    outcome: entry.outcome,
    status: entry.status,
    correlationId: entry.correlationId,
  };
}

function searchOf(query: z.output<typeof AuditLogQuerySchema>, namespace: string | undefined): AuditLogQuery {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from !== undefined && to !== undefined && from.getTime() >= to.getTime())
    throw new InvalidRequest('The query is not valid', [{ path: 'from', message: 'must be before `to`' }]);
  return { ...query, namespace, from, to };
}

function pageOf(found: { results: AuditLogRecord[]; total: number }) {
  return { results: found.results.map(auditEntryView), total: found.total };
}

/** The search filters of both routes, for the OpenAPI document. */
function AuditLogFilters(): MethodDecorator {
  const filters: [string, string][] = [
    ['actor', "An API token's id or name, a user's id or username"],
    ['action', 'e.g. flow.update, execution.kill'],
    ['resourceType', 'e.g. flow, execution, api-token'],
    ['resourceId', 'e.g. company.team/hello, an execution id'],
    ['namespace', 'This namespace and its children'],
    ['outcome', 'success, failure or denied'],
    ['correlationId', "The request's X-Correlation-Id"],
    ['from', 'ISO-8601 date-time: at or after'],
    ['to', 'ISO-8601 date-time: before'],
    ['page', '1-based'],
    ['size', 'At most 200, default 25'],
  ];
  return applyDecorators(...filters.map(([name, description]) => ApiQuery({ name, required: false, description })));
}

/** A tenant's audit log: every write through the API in the tenant, newest first. Never a request body or a secret. */
@ApiTags('access')
@BearerAuth()
@TenantPath()
@Controller('api/v1/:tenant/audit-logs')
export class AuditLogsController {
  @RequirePermission('audit-log', 'read', { namespaceFrom: 'query' })
  @Get()
  @ApiOperation({ summary: "The tenant's audit log, newest first: who did what, when, from where, and the outcome" })
  @AuditLogFilters()
  @ApiOkResponse({ description: '{ results, total }', schema: AUDIT_PAGE_SCHEMA })
  @ProblemResponses(400, 401, 403)
  async search(@TenantData() tenant: TenantRepositories, @Query() query: unknown, @Req() request: AuthenticatedRequest) {
    const parsed = parseWith(AuditLogQuerySchema, query, 'query');
    // An admin bound to a namespace prefix reads the entries of its prefix (the guard refused a `namespace` outside it).
    const namespace = parsed.namespace ?? namespacePrefixOf(request) ?? undefined;
    return pageOf(await tenant.auditLogs.search(searchOf(parsed, namespace)));
  }
}

/** Every audit entry, of every tenant and of the instance routes: instance admins only. */
@ApiTags('access')
@BearerAuth()
@Controller('api/v1/instance/audit-logs')
export class InstanceAuditLogsController {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  @RequirePermission('audit-log', 'read')
  @Get()
  @ApiOperation({ summary: 'The whole audit log, newest first; ?tenant= for one tenant, ?tenant=instance for instance routes' })
  @AuditLogFilters()
  @ApiQuery({ name: 'tenant', required: false, description: 'A tenant id, or `instance` for the instance routes' })
  @ApiOkResponse({ description: '{ results, total }', schema: AUDIT_PAGE_SCHEMA })
  @ProblemResponses(400, 401, 403)
  async search(@Query() query: unknown) {
    const { tenant, ...parsed } = parseWith(InstanceAuditLogQuerySchema, query, 'query');
    const scope: AuditLogScope =
      tenant === undefined ? { instance: true } : { instance: true, tenantId: tenant === 'instance' ? null : tenant };
    return pageOf(await this.repositories.auditLogs.search(scope, searchOf(parsed, parsed.namespace)));
  }
}
