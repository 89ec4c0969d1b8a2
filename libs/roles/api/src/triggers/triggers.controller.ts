import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
// Swagger's schema type is not re-exported from its index.
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { TriggerKey, TriggerStateRecord } from '@lanner/model';
import type { Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { z } from 'zod';
import { type AuthenticatedRequest, namespacePrefixOf } from '../auth/access.guard';
import { RequirePermission } from '../auth/route-access.decorator';
import { PageQuerySchema } from '../http/query';
import { parseWith } from '../http/request-body';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';

const TriggerSearchQuerySchema = PageQuerySchema.extend({
  namespace: z.string().min(1).optional(),
  flowId: z.string().min(1).optional(),
});
const TriggerChangeSchema = z.object({ disabled: z.boolean() }).strict();

const instant = { type: 'string', format: 'date-time', nullable: true } as const;
const TRIGGER_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    namespace: { type: 'string' },
    flowId: { type: 'string' },
    triggerId: { type: 'string' },
    kind: { type: 'string', description: 'Schedule, Flow, Webhook or HttpPolling' },
    nextEvaluationDate: { ...instant, description: 'When the scheduler evaluates it next; null until first evaluated' },
    lastDate: { ...instant, description: 'The date of its last firing' },
    lastExecutionId: { type: 'string', nullable: true },
    lastExecutionState: { type: 'string', nullable: true },
    lockHolder: { type: 'string', nullable: true, description: 'The scheduler evaluating it now' },
    lockExpiresAt: instant,
    disabled: { type: 'boolean', description: 'Disabled through this API' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

function triggerView(record: TriggerStateRecord) {
  return {
    namespace: record.namespace,
    flowId: record.flowId,
    triggerId: record.triggerId,
    kind: record.kind,
    nextEvaluationDate: record.nextDate?.toISOString() ?? null,
    lastDate: record.lastDate?.toISOString() ?? null,
    lastExecutionId: record.lastExecutionId,
    lastExecutionState: record.lastExecutionState,
    lockHolder: record.lockHolder,
    lockExpiresAt: record.lockExpiresAt?.toISOString() ?? null,
    disabled: record.disabled,
    updatedAt: record.updatedAt.toISOString(),
  };
}

/** The triggers of live flows: their next dates and leases; enable, disable, unlock. */
@ApiTags('triggers')
@BearerAuth()
@Controller('api/v1/:tenant/triggers')
export class TriggersController {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  @RequirePermission('trigger', 'read', { namespaceFrom: 'query' })
  @Get('search')
  @ApiOperation({ summary: 'Triggers of live flows, with their next evaluation date, last execution and lock holder' })
  @ApiQuery({ name: 'namespace', required: false, description: 'This namespace and its children' })
  @ApiQuery({ name: 'flowId', required: false })
  @ApiQuery({ name: 'page', required: false })
  @ApiQuery({ name: 'size', required: false })
  @ApiOkResponse({
    schema: { type: 'object', properties: { results: { type: 'array', items: TRIGGER_SCHEMA }, total: { type: 'integer' } } },
  })
  @ProblemResponses(400)
  async search(@Param('tenant') tenant: string, @Query() query: unknown, @Req() request: AuthenticatedRequest) {
    const filter = parseWith(TriggerSearchQuerySchema, query, 'query');
    // A caller bound to a namespace prefix sees only the triggers under it.
    const namespace = filter.namespace ?? namespacePrefixOf(request) ?? undefined;
    const page = await this.repositories.triggers.search(tenant, { ...filter, namespace });
    return { results: page.results.map(triggerView), total: page.total };
  }

  @RequirePermission('trigger', 'write')
  @Put(':namespace/:flowId/:triggerId')
  @ApiOperation({
    summary: 'Enable or disable a trigger; an enabled schedule restarts from its next date (missed dates do not fire)',
  })
  @ApiBody({ schema: { type: 'object', required: ['disabled'], properties: { disabled: { type: 'boolean' } } } })
  @ApiOkResponse({ schema: TRIGGER_SCHEMA })
  @ProblemResponses(400, 404)
  async update(
    @Param('tenant') tenant: string,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('triggerId') triggerId: string,
    @Body() body: unknown,
  ) {
    const { disabled } = parseWith(TriggerChangeSchema, body, 'body');
    const key: TriggerKey = { tenantId: tenant, namespace, flowId, triggerId };
    return triggerView(await this.repositories.triggers.setDisabled(key, disabled));
  }

  @RequirePermission('trigger', 'write')
  @Post(':namespace/:flowId/:triggerId/unlock')
  @HttpCode(200)
  @ApiOperation({ summary: 'Drop the lease of a stuck trigger, so any scheduler evaluates it at once' })
  @ApiOkResponse({ schema: TRIGGER_SCHEMA })
  @ProblemResponses(404)
  async unlock(
    @Param('tenant') tenant: string,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('triggerId') triggerId: string,
  ) {
    return triggerView(await this.repositories.triggers.unlock({ tenantId: tenant, namespace, flowId, triggerId }));
  }
}
