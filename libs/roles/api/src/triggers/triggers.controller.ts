import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TriggerStateRecord } from '@lanner/model';
import { z } from 'zod';
import { type AuthenticatedRequest, namespacePrefixOf } from '../auth/access.guard';
import { RequirePermission } from '../auth/route-access.decorator';
import { PageQuerySchema } from '../http/query';
import { parseWith } from '../http/request-body';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';
import { instant, JsonAnswer, JsonBody, pageOf, QueryParameters } from '../openapi/zod-openapi';
import { FlowNotFound, type TenantRepositories } from '@lanner/repository';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';
import { startBackfill } from './trigger-backfills';
import { Audit } from '../audit/audit.decorator';
import { FlowChangeBroadcasts } from '../flows/flow-change-broadcasts';

const TriggerSearchQuerySchema = PageQuerySchema.extend({
  namespace: z.string().min(1).describe('This namespace and its children').optional(),
  flowId: z.string().min(1).optional(),
});
const TriggerChangeSchema = z.object({ disabled: z.boolean() }).strict();
const LabelsSchema = z.union([
  z.record(z.string().min(1), z.string()),
  // Kestra's form: a list of { key, value }.
  z
    .array(z.object({ key: z.string().min(1), value: z.string() }).strict())
    .transform((labels) => Object.fromEntries(labels.map((label) => [label.key, label.value]))),
]);
const BackfillSchema = z
  .object({
    start: z
      .string()
      .datetime({ offset: true })
      .describe('First date of the range (inclusive)')
      .transform((text) => new Date(text)),
    end: z
      .string()
      .datetime({ offset: true })
      .describe('Last date (inclusive); now when absent')
      .nullish()
      .transform((text) => (text === null || text === undefined ? undefined : new Date(text))),
    inputs: z
      .record(z.string(), z.unknown())
      .describe("Over the schedule's own inputs")
      .nullish()
      .transform((inputs) => inputs ?? undefined),
    labels: LabelsSchema.describe('Added to every execution it starts: a map, or a list of { key, value }')
      .nullish()
      .transform((labels) => labels ?? undefined),
  })
  .strict();

const TriggerViewSchema = z.object({
  namespace: z.string(),
  flowId: z.string(),
  triggerId: z.string(),
  kind: z.string().describe('Schedule, Flow, Webhook or HttpPolling'),
  nextEvaluationDate: instant().nullable().describe('When the scheduler evaluates it next; null until first evaluated'),
  lastDate: instant().nullable().describe('The date of its last firing'),
  lastExecutionId: z.string().nullable(),
  lastExecutionState: z.string().nullable(),
  lockHolder: z.string().nullable().describe('The scheduler evaluating it now'),
  lockExpiresAt: instant().nullable(),
  disabled: z.boolean().describe('Disabled through this API'),
  updatedAt: instant(),
  backfill: z
    .object({
      start: instant(),
      end: instant(),
      currentDate: instant().describe('The first date not fired yet'),
      paused: z.boolean(),
      finished: z.boolean(),
      done: z.number().int().describe('Executions it started so far'),
      inputs: z.record(z.string(), z.unknown()),
      labels: z.record(z.string(), z.string()),
      createdAt: instant(),
    })
    .nullable()
    .describe('Its backfill, running, paused or finished; null when none'),
});

function triggerView(record: TriggerStateRecord): z.output<typeof TriggerViewSchema> {
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
    backfill:
      record.backfill === null
        ? null
        : {
            start: record.backfill.start.toISOString(),
            end: record.backfill.end.toISOString(),
            currentDate: record.backfill.currentDate.toISOString(),
            paused: record.backfill.paused,
            finished: !record.backfill.paused && record.backfill.dueAt === null,
            done: record.backfill.done,
            inputs: record.backfill.inputs,
            labels: record.backfill.labels,
            createdAt: record.backfill.createdAt.toISOString(),
          },
  };
}

/** The triggers of live flows: their next dates and leases; enable, disable, unlock; backfills of schedules. */
@ApiTags('triggers')
@BearerAuth()
@TenantPath()
@Controller('api/v1/:tenant/triggers')
export class TriggersController {
  constructor(private readonly flowChanges: FlowChangeBroadcasts) {}

  @RequirePermission('trigger', 'read', { namespaceFrom: 'query' })
  @Get('search')
  @ApiOperation({ summary: 'Triggers of live flows, with their next evaluation date, last execution and lock holder' })
  @QueryParameters(TriggerSearchQuerySchema)
  @JsonAnswer(pageOf(TriggerViewSchema))
  @ProblemResponses(400)
  async search(@TenantData() tenant: TenantRepositories, @Query() query: unknown, @Req() request: AuthenticatedRequest) {
    const filter = parseWith(TriggerSearchQuerySchema, query, 'query');
    // A caller bound to a namespace prefix sees only the triggers under it.
    const namespace = filter.namespace ?? namespacePrefixOf(request) ?? undefined;
    const page = await tenant.triggers.search({ ...filter, namespace });
    return { results: page.results.map(triggerView), total: page.total };
  }

  @RequirePermission('trigger', 'write')
  @Audit('trigger.update', { id: [':namespace', ':flowId', ':triggerId'], namespace: ':namespace' })
  @Put(':namespace/:flowId/:triggerId')
  @ApiOperation({
    summary: 'Enable or disable a trigger; an enabled schedule restarts from its next date (missed dates do not fire)',
  })
  @JsonBody(TriggerChangeSchema)
  @JsonAnswer(TriggerViewSchema)
  @ProblemResponses(400, 404)
  async update(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('triggerId') triggerId: string,
    @Body() body: unknown,
  ) {
    const { disabled } = parseWith(TriggerChangeSchema, body, 'body');
    const changed = await tenant.triggers.setDisabled({ namespace, flowId, triggerId }, disabled);
    // A Flow trigger enabled or disabled changes what listens to ended executions (a flow deleted since told it already).
    const latest = await tenant.flows.getLatest(namespace, flowId).catch((error: unknown) => {
      if (error instanceof FlowNotFound) return undefined;
      throw error;
    });
    if (latest !== undefined) {
      await this.flowChanges.changed({ tenantId: tenant.tenantId, namespace, flowId, revision: latest.revision });
    }
    return triggerView(changed);
  }

  @RequirePermission('trigger', 'write')
  @Audit('trigger.unlock', { id: [':namespace', ':flowId', ':triggerId'], namespace: ':namespace' })
  @Post(':namespace/:flowId/:triggerId/unlock')
  @HttpCode(200)
  @ApiOperation({ summary: 'Drop the lease of a stuck trigger, so any scheduler evaluates it at once' })
  @JsonAnswer(TriggerViewSchema)
  @ProblemResponses(404)
  async unlock(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('triggerId') triggerId: string,
  ) {
    return triggerView(await tenant.triggers.unlock({ namespace, flowId, triggerId }));
  }

  @RequirePermission('trigger', 'write')
  @Audit('trigger.backfill.create', { id: [':namespace', ':flowId', ':triggerId'], namespace: ':namespace' })
  @Post(':namespace/:flowId/:triggerId/backfill')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Backfill a schedule: fire its dates over a past range, paced, with extra inputs and labels',
  })
  @JsonBody(BackfillSchema)
  @JsonAnswer(TriggerViewSchema, { status: 202, description: 'The trigger, its backfill started' })
  @ProblemResponses(400, 404, 409, 422)
  async createBackfill(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('triggerId') triggerId: string,
    @Body() body: unknown,
  ) {
    const key = { namespace, flowId, triggerId };
    // A trigger this tenant does not have is a 404 whatever the body: the body is read only for one it has.
    await tenant.triggers.get(key);
    const asked = parseWith(BackfillSchema, body, 'body');
    return triggerView(await startBackfill(tenant, key, asked, new Date()));
  }

  @RequirePermission('trigger', 'write')
  @Audit('trigger.backfill.pause', { id: [':namespace', ':flowId', ':triggerId'], namespace: ':namespace' })
  @Put(':namespace/:flowId/:triggerId/backfill/pause')
  @ApiOperation({ summary: 'Pause the running backfill of a schedule' })
  @JsonAnswer(TriggerViewSchema)
  @ProblemResponses(404)
  async pauseBackfill(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('triggerId') triggerId: string,
  ) {
    return triggerView(await tenant.triggers.pauseBackfill({ namespace, flowId, triggerId }));
  }

  @RequirePermission('trigger', 'write')
  @Audit('trigger.backfill.resume', { id: [':namespace', ':flowId', ':triggerId'], namespace: ':namespace' })
  @Put(':namespace/:flowId/:triggerId/backfill/resume')
  @ApiOperation({ summary: 'Resume a paused backfill from the date it had reached' })
  @JsonAnswer(TriggerViewSchema)
  @ProblemResponses(404)
  async resumeBackfill(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('triggerId') triggerId: string,
  ) {
    return triggerView(await tenant.triggers.resumeBackfill({ namespace, flowId, triggerId }, new Date()));
  }

  @RequirePermission('trigger', 'write')
  @Audit('trigger.backfill.delete', { id: [':namespace', ':flowId', ':triggerId'], namespace: ':namespace' })
  @Delete(':namespace/:flowId/:triggerId/backfill')
  @ApiOperation({ summary: 'Delete the backfill of a schedule: the dates it had not reached never fire' })
  @JsonAnswer(TriggerViewSchema)
  @ProblemResponses(404)
  async deleteBackfill(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('flowId') flowId: string,
    @Param('triggerId') triggerId: string,
  ) {
    return triggerView(await tenant.triggers.deleteBackfill({ namespace, flowId, triggerId }));
  }
}
