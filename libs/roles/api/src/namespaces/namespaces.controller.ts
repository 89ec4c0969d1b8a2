import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotFound, type NamespaceSummary } from '@lanner/repository';
import { z } from 'zod';
import { type AuthenticatedRequest, namespacePrefixOf } from '../auth/access.guard';
import { RequirePermission } from '../auth/route-access.decorator';
import { parseWith } from '../http/request-body';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';
import { JsonAnswer, QueryParameters, storedJson } from '../openapi/zod-openapi';
import type { TenantRepositories } from '@lanner/repository';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';

const NamespaceQuerySchema = z.object({ namespace: z.string().min(1).describe('This namespace and its children').optional() });

const NamespaceViewSchema = z.object({
  namespace: z.string(),
  flowCount: z.number().int().describe('Live flows in exactly this namespace'),
  workerSelector: storedJson({ type: 'object', nullable: true, description: 'The default worker selector it declares' }),
  variables: storedJson({ type: 'object', nullable: true }),
});

function namespaceView(summary: NamespaceSummary): z.output<typeof NamespaceViewSchema> {
  return {
    namespace: summary.namespace,
    flowCount: summary.flowCount,
    workerSelector: summary.workerSelector,
    variables: summary.variables,
  };
}

/** The tenant's namespaces: those holding a live flow or declaring settings. Reads only. */
@ApiTags('namespaces')
@BearerAuth()
@TenantPath()
@Controller('api/v1/:tenant/namespaces')
export class NamespacesController {
  @RequirePermission('namespace', 'read', { namespaceFrom: 'query' })
  @Get()
  @ApiOperation({ summary: 'Namespaces with their flow counts, worker-selector defaults and variables' })
  @QueryParameters(NamespaceQuerySchema)
  @JsonAnswer(z.array(NamespaceViewSchema))
  @ProblemResponses(400, 403)
  async list(@TenantData() tenant: TenantRepositories, @Query() query: unknown, @Req() request: AuthenticatedRequest) {
    const { namespace } = parseWith(NamespaceQuerySchema, query, 'query');
    // A namespace-bound caller lists its prefix (the guard refused a `namespace` outside it).
    const within = namespace ?? namespacePrefixOf(request) ?? undefined;
    return (await tenant.namespaces.list(within)).map(namespaceView);
  }

  @RequirePermission('namespace', 'read')
  @Get(':namespace')
  @ApiOperation({ summary: 'One namespace: its flow count, worker-selector default and variables' })
  @JsonAnswer(NamespaceViewSchema)
  @ProblemResponses(403, 404)
  async get(@TenantData() tenant: TenantRepositories, @Param('namespace') namespace: string) {
    const found = (await tenant.namespaces.list(namespace)).find((entry) => entry.namespace === namespace);
    if (found === undefined) throw new NotFound('namespace', namespace);
    return namespaceView(found);
  }
}
