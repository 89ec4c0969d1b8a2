import 'reflect-metadata';
import { type DynamicModule, RequestMethod, type Type } from '@nestjs/common';
import {
  METHOD_METADATA,
  MODULE_METADATA,
  PARAMTYPES_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
  SELF_DECLARED_DEPS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ApiRoleModule } from '../api-role.module';
import { type DeclaredAudit, ROUTE_AUDIT } from '../audit/audit.decorator';
import { type DeclaredRouteAccess, ROUTE_ACCESS } from '../auth/route-access.decorator';

// The api role's routes as Nest registers them, with the access each declares:
// the route-access spec fails on an undeclared one, and the access spec derives
// its permission and tenant-isolation tables from this list, so a new route is
// covered without anyone listing it.

export interface ApiRoute {
  /** `GET`, `POST`, ... */
  readonly method: string;
  /** As Nest writes it: `/api/v1/:tenant/flows/:namespace/:id`. */
  readonly path: string;
  /** `FlowsController.create`: where the route is declared. */
  readonly where: string;
  /** The handler's own declaration, else its controller's; undefined when neither declares one. */
  readonly access: DeclaredRouteAccess | undefined;
  /** Its `@Audit` or `@NotAudited` declaration (the handler's, else its controller's). */
  readonly audit: DeclaredAudit | undefined;
}

function joinPath(...parts: string[]): string {
  return `/${parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .join('/')}`;
}

function isDynamicModule(value: unknown): value is DynamicModule {
  return typeof value === 'object' && value !== null && 'module' in value;
}

/** Every controller of a module and of the modules it imports (static or dynamic). */
export function controllersOf(root: DynamicModule | Type, seen = new Set<unknown>()): Type[] {
  if (seen.has(root)) return [];
  seen.add(root);
  const moduleClass = isDynamicModule(root) ? root.module : root;
  const dynamic: Partial<DynamicModule> = isDynamicModule(root) ? root : {};
  const controllers = [
    ...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, moduleClass) ?? []) as Type[]),
    ...((dynamic.controllers ?? []) as Type[]),
  ];
  const imports = [
    ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, moduleClass) ?? []) as unknown[]),
    ...(dynamic.imports ?? []),
  ];
  for (const imported of imports)
    if (isDynamicModule(imported) || typeof imported === 'function')
      controllers.push(...controllersOf(imported as DynamicModule | Type, seen));
  return controllers;
}

/** The routes of these controllers, read from Nest's own route metadata. */
export function routesOf(controllers: readonly Type[]): ApiRoute[] {
  const routes: ApiRoute[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const classAccess = Reflect.getMetadata(ROUTE_ACCESS, controller) as DeclaredRouteAccess | undefined;
    const classAudit = Reflect.getMetadata(ROUTE_AUDIT, controller) as DeclaredAudit | undefined;
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function' || name === 'constructor') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const sub = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (method === undefined || sub === undefined) continue;
      routes.push({
        method: RequestMethod[method],
        path: joinPath(base, sub),
        where: `${controller.name}.${name}`,
        access: (Reflect.getMetadata(ROUTE_ACCESS, handler) as DeclaredRouteAccess | undefined) ?? classAccess,
        audit: (Reflect.getMetadata(ROUTE_AUDIT, handler) as DeclaredAudit | undefined) ?? classAudit,
      });
    }
  }
  return routes;
}

/** Every controller of the api role (its module as `forRoot` builds it; no connection is opened). */
export function apiRoleControllers(): Type[] {
  const module = ApiRoleModule.forRoot({
    database: { url: 'postgresql://unused', migrateAtStart: false },
    queue: { kind: 'in-process' },
  } as never);
  return controllersOf(module);
}

/** Every route the api role serves. */
export function apiRoleRoutes(): ApiRoute[] {
  return routesOf(apiRoleControllers());
}

/**
 * The API routes (under `/api/`) that declare neither `@RequirePermission` nor
 * `@Public`, each as `GET /api/v1/:tenant/x (XController.y)` so the failure says where to add it.
 */
export function routesWithoutDeclaredAccess(routes: readonly ApiRoute[]): string[] {
  return routes
    .filter((route) => route.path.startsWith('/api/') && route.access?.public !== true && route.access?.permission === undefined)
    .map((route) => `${route.method} ${route.path} (${route.where}): add @RequirePermission(resource, action) or @Public()`);
}

/**
 * The tenant controllers (`api/v1/:tenant/...`) that could reach tenant data
 * other than through their request's tenant scope (@TenantData()): a handler
 * taking the `tenant` path parameter, or the controller or a provider it
 * depends on (followed through constructor parameters) injecting the
 * repositories themselves. Each as `XController.y takes @Param('tenant')` or
 * `XController -> XService injects the repositories`.
 */
export function tenantControllersOutsideTheirScope(controllers: readonly Type[], repositoriesToken: unknown): string[] {
  const found: string[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    if (!/^\/?api\/v1\/:tenant(\/|$)/.test(base)) continue;
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { data?: unknown }>;
      for (const [key, arg] of Object.entries(args))
        if (key.startsWith(`${RouteParamtypes.PARAM}:`) && arg.data === 'tenant')
          found.push(`${controller.name}.${name} takes @Param('tenant'): take @TenantData() instead`);
    }
    found.push(...injectorsOf(controller, repositoriesToken, [controller.name], new Set()));
  }
  return found;
}

function injectorsOf(type: Type, token: unknown, chain: string[], seen: Set<Type>): string[] {
  if (seen.has(type)) return [];
  seen.add(type);
  const declared = (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, type) ?? []) as { param: unknown }[];
  if (declared.some((dependency) => dependency.param === token))
    return [`${chain.join(' -> ')} injects the repositories: read through @TenantData()`];
  const parameters = (Reflect.getMetadata(PARAMTYPES_METADATA, type) ?? []) as unknown[];
  return parameters.flatMap((parameter) =>
    typeof parameter === 'function' && parameter !== Object
      ? injectorsOf(parameter as Type, token, [...chain, (parameter as Type).name], seen)
      : [],
  );
}

/**
 * Whether a route writes: any method but GET, and any route needing a `write`
 * permission. (A GET that writes, as a webhook's, declares its `@Audit` itself.)
 */
export function isWriteRoute(route: ApiRoute): boolean {
  return route.path.startsWith('/api/') && (route.method !== 'GET' || route.access?.permission?.action === 'write');
}

/** The API routes that record an audit entry: those declaring `@Audit`. */
export function auditedRoutes(routes: readonly ApiRoute[]): ApiRoute[] {
  return routes.filter((route) => route.audit !== undefined && 'action' in route.audit);
}

/**
 * The write routes that declare neither `@Audit` nor `@NotAudited`, each as
 * `PUT /api/v1/:tenant/x (XController.y)` so the failure says where to add it.
 */
export function writeRoutesWithoutAudit(routes: readonly ApiRoute[]): string[] {
  return routes
    .filter((route) => isWriteRoute(route) && route.audit === undefined)
    .map(
      (route) => `${route.method} ${route.path} (${route.where}): add @Audit('<resource>.<verb>', { id }) or @NotAudited(reason)`,
    );
}
