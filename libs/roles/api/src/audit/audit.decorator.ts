import { applyDecorators, SetMetadata } from '@nestjs/common';

/**
 * Where an audit entry finds an id or a namespace, by name only (never the
 * request body, which may hold secrets):
 * - `:name`: the path parameter `name`;
 * - `$.field`: the field of the handler's answer (a created resource's id);
 * - `{ executionParam }`: the namespace of the execution the path parameter names;
 * - `caller`: the calling user's username (a user changing its own password).
 */
export type AuditValue = `:${string}` | `$.${string}` | { readonly executionParam: string } | 'caller';

export interface AuditDeclaration {
  /** `<resource type>.<verb>`: `flow.update`, `execution.kill`. */
  readonly action: string;
  readonly resourceType: string;
  /** The resource's id; several parts are joined with `/` (`company.team/hello`). */
  readonly id: readonly AuditValue[];
  readonly namespace?: AuditValue;
}

/** A route that changes nothing recorded by the audit log, with the reason (login, a validation). */
export interface NotAuditedDeclaration {
  readonly notAudited: string;
}

export type DeclaredAudit = AuditDeclaration | NotAuditedDeclaration;

/** The metadata key the audit trail and the route-table spec read. */
export const ROUTE_AUDIT = 'lanner:route-audit';

/**
 * Every request to this route gets one audit entry (`lanner.audit`, stored by
 * the indexer): who, when, the action and resource, from where, and the
 * outcome, whether the change was made, failed or was refused.
 * `@Audit('flow.update', { id: [':namespace', ':id'], namespace: ':namespace' })`.
 */
export function Audit(
  action: `${string}.${string}`,
  target: { id: AuditValue | readonly AuditValue[]; namespace?: AuditValue },
): MethodDecorator & ClassDecorator {
  const declaration: AuditDeclaration = {
    action,
    resourceType: action.slice(0, action.indexOf('.')),
    id: typeof target.id === 'string' || !Array.isArray(target.id) ? [target.id as AuditValue] : target.id,
    namespace: target.namespace,
  };
  return applyDecorators(SetMetadata(ROUTE_AUDIT, declaration));
}

/** A write-method route that is not a change to record (say why: `validates without saving`). */
export function NotAudited(reason: string): MethodDecorator & ClassDecorator {
  const declaration: NotAuditedDeclaration = { notAudited: reason };
  return applyDecorators(SetMetadata(ROUTE_AUDIT, declaration));
}

export function isAudited(declared: DeclaredAudit | undefined): declared is AuditDeclaration {
  return declared !== undefined && 'action' in declared;
}
