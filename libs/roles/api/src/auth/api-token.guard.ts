import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Unauthenticated } from '../http/api-errors';
import type { AuthenticatedRequest } from './access.guard';

export type { AuthenticatedRequest } from './access.guard';

/**
 * Superseded by the global `AccessGuard`, which authenticates and authorizes
 * every API route from its `@RequirePermission` declaration. Kept so that a
 * controller still naming it compiles; it only insists that the access guard ran.
 */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (request.principal === undefined) throw new Unauthenticated('Send an API token as Authorization: Bearer <token>');
    return true;
  }
}
