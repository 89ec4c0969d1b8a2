import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { decideAccess, namespaceWithin, permissionName, type Permission } from '@lanner/access';
import { NotFound, type Repositories, type TenantRepositories, tenantScope } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { Forbidden, InvalidRequest } from '../http/api-errors';
import type { HttpRequest } from '../http/http-types';
import { unstorableTextProblems } from '../http/storable-text';
import { accessSubjectOf, type ApiPrincipal, ApiTokenAuth } from './api-token-auth';
import { ServedTenants } from './served-tenants';
import { type DeclaredRouteAccess, type NamespaceSource, ROUTE_ACCESS } from './route-access.decorator';

/**
 * A request the access guard let through: who it acts as, the namespace prefix it must stay
 * within and, on a tenant route, the data of that tenant (served: it exists and is enabled).
 */
export type AuthenticatedRequest = HttpRequest & {
  principal?: ApiPrincipal;
  namespacePrefix?: string | null;
  tenant?: TenantRepositories;
};

/** The routes the guard rules: the REST API. Health, metrics and the web UI are outside it. */
const API_PATH = /^\/?api(\/|$)/i;

/**
 * Whether the route is part of the API, by its declared controller path and by
 * the request's path (either suffices): routing ignores case, so `/API/v1/...`
 * reaches the same handlers and must meet the same guard.
 */
function isApiRoute(context: ExecutionContext, request: AuthenticatedRequest): boolean {
  const declared = Reflect.getMetadata(PATH_METADATA, context.getClass()) as unknown;
  const declaredPaths = Array.isArray(declared) ? declared : [declared];
  if (declaredPaths.some((path) => typeof path === 'string' && API_PATH.test(path))) return true;
  return API_PATH.test(request.path ?? request.url ?? '');
}

function textParam(source: unknown, name: string): string | undefined {
  const value = (source as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * One guard for every API route (registered globally): the route's declared
 * access (`@RequirePermission` or `@Public`) from Nest metadata, the principal
 * from the verified bearer token only, the decision from `@lanner/access`. A
 * route that declares nothing is refused; `route-access.int-spec` fails on it
 * before it ships.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly logger = new Logger(AccessGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly auth: ApiTokenAuth,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly tenants: ServedTenants,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!isApiRoute(context, request)) return true;

    const declared = this.reflector.getAllAndOverride<DeclaredRouteAccess | undefined>(ROUTE_ACCESS, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (declared?.public === true) {
      // A public tenant route (a webhook) is served for tenants that exist and are enabled only.
      await this.assertTenantServed(request);
      return true;
    }
    if (declared?.permission === undefined) {
      const where = `${context.getClass().name}.${context.getHandler().name}`;
      this.logger.error({ route: where }, 'an API route declares no permission: refused');
      throw new Forbidden('This route declares no permission, so it is refused to everyone');
    }

    const principal = await this.auth.authenticate(request.headers.authorization, new Date());
    assertStorableParams(request);
    // Known before the decision: the audit entry of a refused write names the verified caller.
    request.principal = principal;
    const tenantId = textParam(request.params, 'tenant');
    const namespace = await this.namespaceOf(request, principal, tenantId, declared.namespaceFrom);
    const decision = decideAccess(accessSubjectOf(principal), declared.permission, {
      tenantId,
      namespace,
      handlerNarrows: declared.namespaceFrom === 'query' || declared.namespaceFrom === 'body',
    });
    if (!decision.allowed) throw new Forbidden(decision.message);
    // A tenant never created, or disabled, is absent for every caller (after the decision, so a
    // caller without rights on it learns nothing of which tenants exist).
    await this.assertTenantServed(request);
    request.principal = principal;
    request.namespacePrefix = decision.namespacePrefix;
    return true;
  }

  /**
   * 404 naming the tenant of the path unless it exists and is enabled (any string may be
   * typed there); else the request gets the tenant's scope, through which handlers read.
   */
  private async assertTenantServed(request: AuthenticatedRequest): Promise<void> {
    const tenantId = textParam(request.params, 'tenant');
    if (tenantId === undefined) return;
    assertStorableParams(request);
    const served = await this.tenants.served(tenantId);
    if (served === null) throw new NotFound('tenant', tenantId);
    request.tenant = tenantScope(this.repositories, served);
  }

  /** The namespace the request acts on, where it is known before the handler runs. */
  private async namespaceOf(
    request: AuthenticatedRequest,
    principal: ApiPrincipal,
    tenantId: string | undefined,
    from: NamespaceSource | undefined,
  ): Promise<string | undefined> {
    const inPath = textParam(request.params, 'namespace');
    if (inPath !== undefined) return inPath;
    if (from === 'query') return textParam((request as { query?: unknown }).query, 'namespace');
    // Only a namespace-bound token needs the execution read: the others act on the whole tenant.
    if (typeof from === 'object' && principal.namespace !== null && tenantId !== undefined) {
      const executionId = textParam(request.params, from.executionParam);
      // An unknown execution is the handler's 404, for this tenant as for any caller.
      if (executionId === undefined) return undefined;
      const execution = await this.repositories.executions.get(tenantId, executionId);
      return execution.namespace;
    }
    return undefined;
  }
}

/**
 * The guard reads the repository by path parameters (the tenant, an execution) before the
 * parameter pipe runs: text PostgreSQL cannot hold is refused here, as the pipe would.
 */
function assertStorableParams(request: AuthenticatedRequest): void {
  const unstorable = unstorableTextProblems(request.params ?? {});
  if (unstorable.length > 0) throw new InvalidRequest('The path holds text that cannot be accepted', unstorable);
}

/** The namespace prefix the guard bound this request to (null: the whole tenant). */
export function namespacePrefixOf(request: AuthenticatedRequest): string | null {
  return request.namespacePrefix ?? null;
}

/**
 * For handlers that learn the namespace late (a flow's YAML): a namespace
 * outside the request's prefix is refused as the guard would have.
 */
export function assertNamespaceAllowed(request: AuthenticatedRequest, permission: Permission, namespace: string): void {
  const prefix = namespacePrefixOf(request);
  if (prefix === null || namespaceWithin(namespace, prefix)) return;
  throw new Forbidden(
    `Missing permission '${permissionName(permission)}' on namespace '${namespace}': this one is bound to '${prefix}'`,
  );
}
