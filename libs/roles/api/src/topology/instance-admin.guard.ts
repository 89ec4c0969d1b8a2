import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '../auth/api-token.guard';
import { ApiTokenAuth } from '../auth/api-token-auth';
import { Forbidden } from '../http/api-errors';

/** Every `/api/v1/instance/...` route: a valid bearer token of an instance admin (API.md "Auth"). */
@Injectable()
export class InstanceAdminGuard implements CanActivate {
  constructor(private readonly auth: ApiTokenAuth) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = await this.auth.authenticate(request.headers.authorization, new Date());
    if (!principal.instanceAdmin) throw new Forbidden('Only an instance admin may use the instance routes');
    request.principal = principal;
    return true;
  }
}
