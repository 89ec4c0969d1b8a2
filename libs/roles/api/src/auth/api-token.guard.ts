import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { HttpRequest } from '../http/http-types';
import { type ApiPrincipal, ApiTokenAuth } from './api-token-auth';

/** The principal the guard attached to the request. */
export type AuthenticatedRequest = HttpRequest & { principal?: ApiPrincipal };

/** Every /api/v1 route: a valid bearer token, allowed on the route's tenant. */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  constructor(private readonly auth: ApiTokenAuth) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = await this.auth.authenticate(request.headers.authorization, new Date());
    const tenant = typeof request.params?.tenant === 'string' ? request.params.tenant : undefined;
    this.auth.authorizeTenant(principal, tenant);
    request.principal = principal;
    return true;
  }
}
