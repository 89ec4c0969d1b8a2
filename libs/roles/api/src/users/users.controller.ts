import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { TENANT_ROLES } from '@lanner/access';
import { assertAcceptablePassword, hashPassword, WeakPassword } from '@lanner/auth';
import type { Repositories, UserRecord } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { Inject } from '@nestjs/common';
import { z } from 'zod';
import { roleOfStored, storedRole } from '../auth/api-token-auth';
import { RequirePermission } from '../auth/route-access.decorator';
import { InvalidRequest } from '../http/api-errors';
import { parseWith } from '../http/request-body';
import { BearerAuth, ProblemResponses } from '../openapi/api-docs.decorators';
import { Audit } from '../audit/audit.decorator';

const USERNAME = /^[A-Za-z0-9._@-]{1,128}$/;
const USERNAME_RULE = 'must be 1 to 128 letters, digits, ".", "_", "@" or "-"';
const TENANT = /^[a-z0-9][a-z0-9_-]{0,62}$/;

const NewUserSchema = z
  .object({
    username: z.string().regex(USERNAME, USERNAME_RULE),
    password: z.string(),
    tenant: z.string().regex(TENANT, 'must be a tenant id (lowercase letters, digits, "_" or "-")').default('main'),
    role: z.enum(TENANT_ROLES),
    instanceAdmin: z.boolean().default(false),
  })
  .strict();
const UserChangeSchema = z
  .object({
    password: z.string().optional(),
    tenant: z.string().regex(TENANT, 'must be a tenant id (lowercase letters, digits, "_" or "-")').optional(),
    role: z.enum(TENANT_ROLES).optional(),
    instanceAdmin: z.boolean().optional(),
  })
  .strict();

const USER_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    username: { type: 'string' },
    tenant: { type: 'string' },
    role: { type: 'string', enum: [...TENANT_ROLES] },
    instanceAdmin: { type: 'boolean' },
    lockedUntil: { type: 'string', format: 'date-time', nullable: true },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};
const USER_BODY_PROPERTIES = {
  password: { type: 'string', minLength: 12, maxLength: 256, description: 'Stored only as its argon2id hash' },
  tenant: { type: 'string', description: 'default main' },
  role: { type: 'string', enum: [...TENANT_ROLES] },
  instanceAdmin: { type: 'boolean' },
};

function userView(user: UserRecord) {
  return {
    username: user.username,
    tenant: user.tenantId,
    role: roleOfStored(user.role),
    instanceAdmin: user.instanceAdmin,
    lockedUntil: user.lockedUntil?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}

async function passwordHashOf(password: string): Promise<string> {
  try {
    assertAcceptablePassword(password);
  } catch (error) {
    if (error instanceof WeakPassword)
      throw new InvalidRequest('The body is not valid', [{ path: 'password', message: error.message }]);
    throw error;
  }
  return hashPassword(password);
}

/** Users who log in with a password: instance admins manage them. No answer ever holds a password or its hash. */
@ApiTags('access')
@BearerAuth()
@Controller('api/v1/instance/users')
export class UsersController {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  @RequirePermission('user', 'read')
  @Get()
  @ApiOperation({ summary: 'List the users' })
  @ApiOkResponse({ description: 'The users', schema: { type: 'array', items: USER_SCHEMA } })
  @ProblemResponses(401, 403)
  async list() {
    return (await this.repositories.users.list()).map(userView);
  }

  @RequirePermission('user', 'write')
  @Audit('user.create', { id: '$.username' })
  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a user with a password' })
  @ApiBody({
    required: true,
    schema: {
      type: 'object',
      required: ['username', 'password', 'role'],
      properties: { username: { type: 'string', maxLength: 128 }, ...USER_BODY_PROPERTIES },
    },
  })
  @ApiResponse({ status: 201, description: 'Created', schema: USER_SCHEMA })
  @ProblemResponses(400, 401, 403, 409)
  async create(@Body() body: unknown) {
    const user = parseWith(NewUserSchema, body, 'body');
    await this.assertTenantExists(user.tenant);
    const created = await this.repositories.users.create({
      username: user.username,
      passwordHash: await passwordHashOf(user.password),
      tenantId: user.tenant,
      role: storedRole(user.role),
      instanceAdmin: user.instanceAdmin,
    });
    return userView(created);
  }

  @RequirePermission('user', 'write')
  @Audit('user.update', { id: ':username' })
  @Put(':username')
  @ApiOperation({ summary: "Change a user's password, tenant, role or instance-admin right; a new password ends its logins" })
  @ApiBody({ required: true, schema: { type: 'object', properties: USER_BODY_PROPERTIES } })
  @ApiOkResponse({ description: 'The user', schema: USER_SCHEMA })
  @ProblemResponses(400, 401, 403, 404)
  async update(@Param('username') username: string, @Body() body: unknown) {
    const change = parseWith(UserChangeSchema, body, 'body');
    if (change.tenant !== undefined) await this.assertTenantExists(change.tenant);
    const updated = await this.repositories.users.update(username, {
      passwordHash: change.password === undefined ? undefined : await passwordHashOf(change.password),
      tenantId: change.tenant,
      role: change.role === undefined ? undefined : storedRole(change.role),
      instanceAdmin: change.instanceAdmin,
    });
    if (change.password !== undefined) await this.repositories.users.revokeRefreshTokensOf(updated.id, new Date());
    return userView(updated);
  }

  /** A user is bound to a tenant that was created: the routes of any other answer 404. */
  private async assertTenantExists(tenant: string): Promise<void> {
    if (await this.repositories.tenants.exists(tenant)) return;
    throw new InvalidRequest('The body is not valid', [
      { path: 'tenant', message: `names the unknown tenant '${tenant}': create it first (POST /api/v1/instance/tenants)` },
    ]);
  }

  @RequirePermission('user', 'write')
  @Audit('user.delete', { id: ':username' })
  @Delete(':username')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a user; its logins end and its access tokens are refused at once' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ProblemResponses(401, 403, 404)
  async remove(@Param('username') username: string): Promise<void> {
    await this.repositories.users.delete(username);
  }
}
