import { DEFAULT_TENANT_ID } from '@lanner/model';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { TENANT_ID_PATTERN, TENANT_ID_RULE, TENANT_ROLES } from '@lanner/access';
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
import { instant, JsonAnswer, JsonBody } from '../openapi/zod-openapi';
import { Audit } from '../audit/audit.decorator';
import { newPasswordField } from './password-field';

const USERNAME = /^[A-Za-z0-9._@-]{1,128}$/;
const USERNAME_RULE = 'must be 1 to 128 letters, digits, ".", "_", "@" or "-"';

const NewUserSchema = z
  .object({
    username: z.string().regex(USERNAME, USERNAME_RULE),
    password: newPasswordField(),
    tenant: z.string().regex(TENANT_ID_PATTERN, TENANT_ID_RULE).default(DEFAULT_TENANT_ID),
    role: z.enum(TENANT_ROLES),
    instanceAdmin: z.boolean().default(false),
  })
  .strict();
const UserChangeSchema = z
  .object({
    password: newPasswordField().optional(),
    tenant: z.string().regex(TENANT_ID_PATTERN, TENANT_ID_RULE).optional(),
    role: z.enum(TENANT_ROLES).optional(),
    instanceAdmin: z.boolean().optional(),
  })
  .strict();

const UserViewSchema = z.object({
  username: z.string(),
  tenant: z.string(),
  role: z.enum(TENANT_ROLES),
  instanceAdmin: z.boolean(),
  lockedUntil: instant().nullable(),
  createdAt: instant(),
  updatedAt: instant(),
});

function userView(user: UserRecord): z.output<typeof UserViewSchema> {
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
  @JsonAnswer(z.array(UserViewSchema), { description: 'The users' })
  @ProblemResponses(401, 403)
  async list() {
    return (await this.repositories.users.list()).map(userView);
  }

  @RequirePermission('user', 'write')
  @Audit('user.create', { id: '$.username' })
  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a user with a password' })
  @JsonBody(NewUserSchema)
  @JsonAnswer(UserViewSchema, { status: 201, description: 'Created' })
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
  @JsonBody(UserChangeSchema)
  @JsonAnswer(UserViewSchema, { description: 'The user' })
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
