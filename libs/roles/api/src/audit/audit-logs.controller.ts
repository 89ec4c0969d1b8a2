import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditActorTypeSchema, AuditOutcomeSchema } from '@lanner/frames';
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
import { instant as instantAnswer, JsonAnswer, pageOf, QueryParameters } from '../openapi/zod-openapi';

const instant = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time such as 2026-12-01T00:00:00Z' });
const text = z.string().min(1).max(512);
const AuditLogQuerySchema = PageQuerySchema.extend({
  actor: text.describe("An API token's id or name, a user's id or username").optional(),
  action: text.describe('e.g. flow.update, execution.kill').optional(),
  resourceType: text.describe('e.g. flow, execution, api-token').optional(),
  resourceId: text.describe('e.g. company.team/hello, an execution id').optional(),
  namespace: text.describe('This namespace and its children').optional(),
  outcome: AuditOutcomeSchema.optional(),
  correlationId: text.describe("The request's X-Correlation-Id").optional(),
  from: instant.describe('ISO-8601 date-time: at or after').optional(),
  to: instant.describe('ISO-8601 date-time: before').optional(),
}).strict();
const InstanceAuditLogQuerySchema = AuditLogQuerySchema.extend({
  tenant: text.describe('A tenant id, or `instance` for the instance routes (they have no tenant)').optional(),
}).strict();

const AuditEntryViewSchema = z.object({
  id: z.string().meta({ format: 'uuid' }),
  tenant: z.string().nullable().describe('null on instance routes'),
  occurredAt: instantAnswer(),
  action: z.string().meta({ example: 'flow.update' }),
  resourceType: z.string().meta({ example: 'flow' }),
  resourceId: z.string().nullable().meta({ example: 'company.team/hello' }),
  namespace: z.string().nullable(),
  actor: z.object({
    type: AuditActorTypeSchema,
    id: z.string().nullable().describe("The API token's id or the user's id"),
    name: z.string().nullable().describe("The API token's name or the username"),
  }),
  clientIp: z.string().nullable(),
  userAgent: z.string().nullable(),
  outcome: AuditOutcomeSchema,
  status: z.number().int().describe('The HTTP status answered'),
  correlationId: z.string().nullable(),
});
const AuditPageViewSchema = pageOf(AuditEntryViewSchema);

function auditEntryView(entry: AuditLogRecord): z.output<typeof AuditEntryViewSchema> {
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

function auditPageOf(found: { results: AuditLogRecord[]; total: number }): z.output<typeof AuditPageViewSchema> {
  return { results: found.results.map(auditEntryView), total: found.total };
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
  @QueryParameters(AuditLogQuerySchema)
  @JsonAnswer(AuditPageViewSchema, { description: '{ results, total }' })
  @ProblemResponses(400, 401, 403)
  async search(@TenantData() tenant: TenantRepositories, @Query() query: unknown, @Req() request: AuthenticatedRequest) {
    const parsed = parseWith(AuditLogQuerySchema, query, 'query');
    // An admin bound to a namespace prefix reads the entries of its prefix (the guard refused a `namespace` outside it).
    const namespace = parsed.namespace ?? namespacePrefixOf(request) ?? undefined;
    return auditPageOf(await tenant.auditLogs.search(searchOf(parsed, namespace)));
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
  @QueryParameters(InstanceAuditLogQuerySchema)
  @JsonAnswer(AuditPageViewSchema, { description: '{ results, total }' })
  @ProblemResponses(400, 401, 403)
  async search(@Query() query: unknown) {
    const { tenant, ...parsed } = parseWith(InstanceAuditLogQuerySchema, query, 'query');
    const scope: AuditLogScope =
      tenant === undefined ? { instance: true } : { instance: true, tenantId: tenant === 'instance' ? null : tenant };
    return auditPageOf(await this.repositories.auditLogs.search(scope, searchOf(parsed, parsed.namespace)));
  }
}
