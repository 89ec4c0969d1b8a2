import { Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { MAX_FLOW_SOURCE_BYTES } from '@lanner/model';
import type { HttpRequest, HttpResponse } from '../http/http-types';
import { z } from 'zod';
import { MAX_STORED_INT, PageQuerySchema, positiveIntQuery } from '../http/query';
import { parseWith, readTextBody } from '../http/request-body';
import { BearerAuth, ProblemResponses, YamlBody } from '../openapi/api-docs.decorators';
import { ProblemEntrySchema } from '../http/api-errors';
import { JsonAnswer, QueryParameters } from '../openapi/zod-openapi';
import { FlowPageSchema, flowView, FlowViewSchema } from './flow-view';
import { FlowsService } from './flows.service';
import { assertNamespaceAllowed, type AuthenticatedRequest, namespacePrefixOf } from '../auth/access.guard';
import { RequirePermission } from '../auth/route-access.decorator';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';
import type { TenantRepositories } from '@lanner/repository';
import { Audit, NotAudited } from '../audit/audit.decorator';

const FlowSearchQuerySchema = PageQuerySchema.extend({
  namespace: z.string().min(1).describe('This namespace and its children').optional(),
  q: z.string().describe('Text in the flow id or namespace').optional(),
});
const RevisionQuerySchema = z.object({ revision: positiveIntQuery(MAX_STORED_INT).optional() });

@ApiTags('flows')
@BearerAuth()
@TenantPath()
@Controller('api/v1/:tenant/flows')
export class FlowsController {
  constructor(private readonly flows: FlowsService) {}

  @RequirePermission('flow', 'write', { namespaceFrom: 'body' })
  @Audit('flow.create', { id: ['$.namespace', '$.id'], namespace: '$.namespace' })
  @Post()
  @ApiOperation({ summary: 'Create a flow from YAML' })
  @YamlBody()
  @JsonAnswer(FlowViewSchema, { status: 201, description: 'The flow, revision 1 (or the next one after a delete)' })
  @ProblemResponses(409, 413, 415, 422)
  async create(@TenantData() tenant: TenantRepositories, @Req() request: AuthenticatedRequest) {
    const source = await readTextBody(request, MAX_FLOW_SOURCE_BYTES);
    const allowed = (namespace: string) => assertNamespaceAllowed(request, { resource: 'flow', action: 'write' }, namespace);
    return flowView(await this.flows.create(tenant, source, allowed));
  }

  @RequirePermission('flow', 'read', { namespaceFrom: 'body' })
  @NotAudited('validates a flow without saving it')
  @Post('validate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Validate a flow without saving it: every problem with its YAML path and line' })
  @YamlBody()
  @JsonAnswer(z.array(ProblemEntrySchema), {
    description: "Every problem: problems refuse the flow; entries with severity 'WARNING' (a deprecated spelling) do not",
  })
  @ProblemResponses(413, 415)
  async validate(@Req() request: HttpRequest): Promise<z.output<typeof ProblemEntrySchema>[]> {
    return this.flows.validate(await readTextBody(request, MAX_FLOW_SOURCE_BYTES));
  }

  @RequirePermission('flow', 'read', { namespaceFrom: 'query' })
  @Get('search')
  @ApiOperation({ summary: 'Search live flows' })
  @QueryParameters(FlowSearchQuerySchema)
  @JsonAnswer(FlowPageSchema, { description: 'One page of live flows' })
  @ProblemResponses(400)
  async search(
    @TenantData() tenant: TenantRepositories,
    @Query() query: unknown,
    @Req() request: AuthenticatedRequest,
  ): Promise<z.output<typeof FlowPageSchema>> {
    const filter = parseWith(FlowSearchQuerySchema, query, 'query');
    // A namespace-bound caller searches its prefix (the guard refused a `namespace` outside it).
    const page = await this.flows.search(tenant, {
      ...filter,
      namespace: filter.namespace ?? namespacePrefixOf(request) ?? undefined,
    });
    return { results: page.results.map(flowView), total: page.total };
  }

  @RequirePermission('flow', 'write')
  @Audit('flow.update', { id: [':namespace', ':id'], namespace: ':namespace' })
  @Put(':namespace/:id')
  @ApiOperation({ summary: 'Save a new revision (revision + 1); creates the flow when absent (201)' })
  @YamlBody()
  @JsonAnswer(FlowViewSchema, { description: 'The flow with its new revision' })
  @JsonAnswer(FlowViewSchema, { status: 201, description: 'The flow did not exist and was created' })
  @ProblemResponses(413, 415, 422)
  async save(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('id') id: string,
    @Req() request: HttpRequest,
    @Res({ passthrough: true }) response: HttpResponse,
  ) {
    const source = await readTextBody(request, MAX_FLOW_SOURCE_BYTES);
    const { flow, created } = await this.flows.save(tenant, namespace, id, source);
    response.statusCode = created ? 201 : 200;
    return flowView(flow);
  }

  @RequirePermission('flow', 'read')
  @Get(':namespace/:id')
  @ApiOperation({ summary: 'The live flow, or an older revision with ?revision=N' })
  @QueryParameters(RevisionQuerySchema)
  @JsonAnswer(FlowViewSchema, { description: 'The flow' })
  @ProblemResponses(400, 404)
  async get(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('id') id: string,
    @Query() query: unknown,
  ) {
    const { revision } = parseWith(RevisionQuerySchema, query, 'query');
    return flowView(await this.flows.get(tenant, namespace, id, revision));
  }

  @RequirePermission('flow', 'write')
  @Audit('flow.delete', { id: [':namespace', ':id'], namespace: ':namespace' })
  @Delete(':namespace/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a flow (its revisions stay in the history)' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ProblemResponses(404)
  async delete(
    @TenantData() tenant: TenantRepositories,
    @Param('namespace') namespace: string,
    @Param('id') id: string,
  ): Promise<void> {
    await this.flows.delete(tenant, namespace, id);
  }
}
