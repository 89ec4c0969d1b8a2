import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import type { TenantRepositories } from '@lanner/repository';
import type { AuthenticatedRequest } from './access.guard';

/**
 * The data of the path's tenant, for a handler under `/api/v1/:tenant`: the
 * access guard made it once it found the tenant served (it exists and is
 * enabled), so every read and write through it is that tenant's and no other.
 * Handlers take this instead of the `tenant` path parameter.
 */
export const TenantData = createParamDecorator((_: unknown, context: ExecutionContext): TenantRepositories => {
  const tenant = context.switchToHttp().getRequest<AuthenticatedRequest>().tenant;
  // Only a route without `:tenant` in its path can get here without one: a programming error.
  if (tenant === undefined) throw new Error('@TenantData() is for routes under /api/v1/:tenant');
  return tenant;
});

/** On a tenant controller: its routes' `tenant` path parameter, for the OpenAPI document (handlers take @TenantData()). */
export function TenantPath(): ClassDecorator {
  return applyDecorators(ApiParam({ name: 'tenant', required: true, schema: { type: 'string' } }));
}
