import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '../auth/access.guard';
import { Forbidden } from '../http/api-errors';

/**
 * Superseded by the global `AccessGuard` (instance resources need the
 * `instance-admin` holder in `@lanner/access`). Kept so that a controller still
 * naming it compiles; it refuses anyone the access guard did not admit as an instance admin.
 */
@Injectable()
export class InstanceAdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (request.principal?.instanceAdmin !== true) throw new Forbidden('Only an instance admin may use the instance routes');
    return true;
  }
}
