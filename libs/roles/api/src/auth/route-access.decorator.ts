import { applyDecorators, SetMetadata } from '@nestjs/common';
import type { ActionOf, Permission, Resource } from '@lanner/access';

/**
 * Where a route finds the namespace it acts on, for tokens and users bound to a
 * namespace prefix. A `:namespace` path parameter is always read.
 * - `query`: a search; `?namespace=` is checked, and without it the handler narrows
 *   the search to the caller's prefix (`namespacePrefixOf(request)`).
 * - `body`: the namespace is in the body (a flow's YAML): the handler checks it.
 * - `{ executionParam }`: the path parameter naming an execution; its namespace is read first.
 */
export type NamespaceSource = 'query' | 'body' | { readonly executionParam: string };

export interface DeclaredRouteAccess {
  readonly public?: true;
  readonly permission?: Permission;
  readonly namespaceFrom?: NamespaceSource;
}

/** The metadata key every API route (or its controller) must carry; the access guard and the route-table spec read it. */
export const ROUTE_ACCESS = 'lanner:route-access';

/**
 * The permission a route needs (`@RequirePermission('flow', 'write')`), on a
 * handler or on its controller (a handler's own declaration wins). Only pairs of
 * the permission table (`@lanner/access`) compile.
 */
export function RequirePermission<R extends Resource>(
  resource: R,
  action: ActionOf<R>,
  options: { namespaceFrom?: NamespaceSource } = {},
): MethodDecorator & ClassDecorator {
  // The generic signature admits only pairs of the table; the union type cannot see that through R.
  const access: DeclaredRouteAccess = { permission: { resource, action } as Permission, ...options };
  return applyDecorators(SetMetadata(ROUTE_ACCESS, access));
}

/** A route anyone may call without a token (login, webhooks whose key is the secret). Say why next to it. */
export function Public(): MethodDecorator & ClassDecorator {
  const access: DeclaredRouteAccess = { public: true };
  return applyDecorators(SetMetadata(ROUTE_ACCESS, access));
}
