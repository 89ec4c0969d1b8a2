import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { TENANT_ROLES } from '@lanner/access';
import type { ApiTokenRecord } from '@lanner/repository';
import type { AuthenticatedRequest } from '../auth/access.guard';
import { type ApiPrincipal, roleOfStored } from '../auth/api-token-auth';
import { RequirePermission } from '../auth/route-access.decorator';
import { Unauthenticated } from '../http/api-errors';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';
import { instant, JsonAnswer, JsonBody } from '../openapi/zod-openapi';
import { ApiTokensService, NewApiTokenSchema } from './api-tokens.service';
import type { TenantRepositories } from '@lanner/repository';
import { TenantData, TenantPath } from '../auth/tenant-data.decorator';
import { Audit } from '../audit/audit.decorator';

const ApiTokenViewSchema = z.object({
  id: z.string().meta({ format: 'uuid' }),
  name: z.string(),
  role: z.enum(TENANT_ROLES),
  namespace: z.string().nullable().describe('The namespace prefix the token is bound to; null: the whole tenant'),
  instanceAdmin: z.boolean(),
  createdAt: instant(),
  expiresAt: instant().nullable(),
  lastUsedAt: instant().nullable(),
  revokedAt: instant().nullable(),
});
const MintedApiTokenViewSchema = ApiTokenViewSchema.extend({
  token: z.string().describe('The token: shown only in this answer, stored only as its SHA-256 hash'),
});

function apiTokenView(record: ApiTokenRecord): z.output<typeof ApiTokenViewSchema> {
  return {
    id: record.id,
    name: record.name,
    role: roleOfStored(record.role),
    namespace: record.namespace,
    instanceAdmin: record.instanceAdmin,
    createdAt: record.createdAt.toISOString(),
    expiresAt: record.expiresAt?.toISOString() ?? null,
    lastUsedAt: record.lastUsedAt?.toISOString() ?? null,
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}

function principalOf(request: AuthenticatedRequest): ApiPrincipal {
  // The access guard admitted the request, so it set the principal.
  if (request.principal === undefined) throw new Unauthenticated('Send an API token as Authorization: Bearer <token>');
  return request.principal;
}

@ApiTags('access')
@BearerAuth()
@TenantPath()
@Controller('api/v1/:tenant/api-tokens')
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  @RequirePermission('api-token', 'write')
  @Audit('api-token.create', { id: '$.id', namespace: '$.namespace' })
  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an API token (for CI): its value is in this answer only' })
  @JsonBody(NewApiTokenSchema)
  @JsonAnswer(MintedApiTokenViewSchema, { status: 201, description: 'The token with its value' })
  @ProblemResponses(400, 403, 409)
  async create(
    @TenantData() tenant: TenantRepositories,
    @Body() body: unknown,
    @Req() request: AuthenticatedRequest,
  ): Promise<z.output<typeof MintedApiTokenViewSchema>> {
    const { record, token } = await this.tokens.mint(tenant, principalOf(request), body, new Date());
    return { ...apiTokenView(record), token };
  }

  @RequirePermission('api-token', 'read')
  @Get()
  @ApiOperation({ summary: "The tenant's API tokens, newest first, without their values" })
  @JsonAnswer(z.array(ApiTokenViewSchema))
  @ProblemResponses(403)
  async list(@TenantData() tenant: TenantRepositories) {
    return (await this.tokens.list(tenant)).map(apiTokenView);
  }

  @RequirePermission('api-token', 'write')
  @Audit('api-token.revoke', { id: ':id' })
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API token: refused from the next request on' })
  @ApiResponse({ status: 204, description: 'Revoked (revoking again changes nothing)' })
  @ProblemResponses(403, 404)
  async revoke(
    @TenantData() tenant: TenantRepositories,
    @Param('id') id: string,
    @Req() request: AuthenticatedRequest,
  ): Promise<void> {
    await this.tokens.revoke(tenant, principalOf(request), id, new Date());
  }
}
