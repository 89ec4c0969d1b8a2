import { DEFAULT_TENANT_ID } from '@lanner/model';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { TENANT_ID_RULE, tenantIdProblem } from '@lanner/access';
import type { Repositories, TenantRecord } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { z } from 'zod';
import { RequirePermission } from '../auth/route-access.decorator';
import { ServedTenants } from '../auth/served-tenants';
import { Forbidden } from '../http/api-errors';
import { parseWith } from '../http/request-body';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';
import { instant, JsonAnswer, JsonBody } from '../openapi/zod-openapi';
import { Audit } from '../audit/audit.decorator';

const NewTenantSchema = z
  .object({
    id: z
      .string()
      .describe(`The tenant id: ${TENANT_ID_RULE}`)
      .superRefine((id, context) => {
        const problem = tenantIdProblem(id);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      }),
    name: z.string().min(1).max(200).optional(),
  })
  .strict();

const TenantViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: instant(),
  disabledAt: instant().nullable(),
});

function tenantView(tenant: TenantRecord): z.output<typeof TenantViewSchema> {
  return {
    id: tenant.id,
    name: tenant.name,
    createdAt: tenant.createdAt.toISOString(),
    disabledAt: tenant.disabledAt?.toISOString() ?? null,
  };
}

/** Tenants as entities: instance admins create, list, disable and enable them. A disabled tenant's routes answer 404. */
@ApiTags('access')
@BearerAuth()
@Controller('api/v1/instance/tenants')
export class TenantsController {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly served: ServedTenants,
  ) {}

  @RequirePermission('tenant', 'read')
  @Get()
  @ApiOperation({ summary: 'List the tenants, disabled ones included' })
  @JsonAnswer(z.array(TenantViewSchema), { description: 'The tenants' })
  @ProblemResponses(401, 403)
  async list() {
    return (await this.repositories.tenants.list()).map(tenantView);
  }

  @RequirePermission('tenant', 'write')
  @Audit('tenant.create', { id: '$.id' })
  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a tenant' })
  @JsonBody(NewTenantSchema)
  @JsonAnswer(TenantViewSchema, { status: 201, description: 'Created' })
  @ProblemResponses(400, 401, 403, 409)
  async create(@Body() body: unknown) {
    const { id, name } = parseWith(NewTenantSchema, body, 'body');
    return tenantView(await this.repositories.tenants.create({ id, name: name ?? id }));
  }

  @RequirePermission('tenant', 'write')
  @Audit('tenant.disable', { id: ':id' })
  @Post(':id/disable')
  @HttpCode(200)
  @ApiOperation({
    summary: `Disable a tenant: its routes answer 404 until it is enabled again; its data is kept ('${DEFAULT_TENANT_ID}' cannot be)`,
  })
  @JsonAnswer(TenantViewSchema, { description: 'The tenant' })
  @ProblemResponses(401, 403, 404)
  async disable(@Param('id') id: string) {
    if (id === DEFAULT_TENANT_ID) throw new Forbidden(`The tenant '${DEFAULT_TENANT_ID}' cannot be disabled`);
    const tenant = await this.repositories.tenants.setDisabled(id, new Date());
    this.served.forget(id);
    return tenantView(tenant);
  }

  @RequirePermission('tenant', 'write')
  @Audit('tenant.enable', { id: ':id' })
  @Post(':id/enable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Enable a disabled tenant again' })
  @JsonAnswer(TenantViewSchema, { description: 'The tenant' })
  @ProblemResponses(401, 403, 404)
  async enable(@Param('id') id: string) {
    const tenant = await this.repositories.tenants.setDisabled(id, null);
    this.served.forget(id);
    return tenantView(tenant);
  }
}
