import { toStorableText } from '@lanner/model';
import type { Prisma } from '../generated/prisma/client';
import type { Db } from '../prisma';

export type AuditActorKind = 'api-token' | 'user' | 'anonymous';
export type AuditOutcomeKind = 'success' | 'failure' | 'denied';

/** One write through the API, as the indexer stores it: ids only, never a body or a secret. */
export interface AuditLogRecord {
  /** The entry's message id on `lanner.audit`. */
  readonly id: string;
  /** Null on instance routes. */
  readonly tenantId: string | null;
  readonly occurredAt: Date;
  readonly action: string;
  readonly resourceType: string;
  readonly resourceId: string | null;
  readonly namespace: string | null;
  readonly actor: { readonly type: AuditActorKind; readonly id: string | null; readonly name: string | null };
  readonly clientIp: string | null;
  readonly userAgent: string | null;
  readonly outcome: AuditOutcomeKind;
  readonly status: number;
  readonly correlationId: string | null;
}

export interface AuditLogQuery {
  /** An actor's id or name (an API token id or name, a user id or username). */
  readonly actor?: string;
  readonly action?: string;
  readonly resourceType?: string;
  readonly resourceId?: string;
  /** This namespace and the ones under it. */
  readonly namespace?: string;
  readonly outcome?: AuditOutcomeKind;
  /** The request's correlation id. */
  readonly correlationId?: string;
  /** Occurred at or after. */
  readonly from?: Date;
  /** Occurred before. */
  readonly to?: Date;
  /** 1-based. */
  readonly page: number;
  readonly size: number;
}

/** Which tenant's entries a search reads: one tenant's, or (instance admins) every entry, optionally one tenant's or the instance routes'. */
export type AuditLogScope = { readonly tenantId: string } | { readonly instance: true; readonly tenantId?: string | null };

// Path parameters and user agents are client-controlled: kept, but bounded and storable.
const MAX_TEXT = 512;

function bounded(text: string | null): string | null {
  return text === null ? null : toStorableText(text).slice(0, MAX_TEXT);
}

/**
 * The audit log (`audit_logs`), written by the indexer from `lanner.audit` and
 * read by the audit-log routes. Idempotent by message id: a redelivered entry
 * is stored once.
 */
export class AuditLogRepository {
  constructor(private readonly db: Db) {}

  /** Stores the entries not stored yet; returns how many were added. */
  async append(entries: readonly AuditLogRecord[]): Promise<number> {
    if (entries.length === 0) return 0;
    const { count } = await this.db.auditLog.createMany({
      data: entries.map((entry) => ({
        id: entry.id,
        tenantId: bounded(entry.tenantId),
        occurredAt: entry.occurredAt,
        action: entry.action,
        resourceType: entry.resourceType,
        resourceId: bounded(entry.resourceId),
        namespace: bounded(entry.namespace),
        actorType: entry.actor.type,
        actorId: bounded(entry.actor.id),
        actorName: bounded(entry.actor.name),
        clientIp: bounded(entry.clientIp),
        userAgent: bounded(entry.userAgent),
        outcome: entry.outcome,
        status: entry.status,
        correlationId: bounded(entry.correlationId),
      })),
      skipDuplicates: true,
    });
    return count;
  }

  /** Entries of the scope matching the query, newest first, with the total count. */
  async search(scope: AuditLogScope, query: AuditLogQuery): Promise<{ results: AuditLogRecord[]; total: number }> {
    const where: Prisma.AuditLogWhereInput = {
      AND: [
        'instance' in scope ? (scope.tenantId === undefined ? {} : { tenantId: scope.tenantId }) : { tenantId: scope.tenantId },
        query.actor === undefined ? {} : { OR: [{ actorId: query.actor }, { actorName: query.actor }] },
        query.action === undefined ? {} : { action: query.action },
        query.resourceType === undefined ? {} : { resourceType: query.resourceType },
        query.resourceId === undefined ? {} : { resourceId: query.resourceId },
        query.namespace === undefined
          ? {}
          : { OR: [{ namespace: query.namespace }, { namespace: { startsWith: `${query.namespace}.` } }] },
        query.outcome === undefined ? {} : { outcome: query.outcome },
        query.correlationId === undefined ? {} : { correlationId: query.correlationId },
        query.from === undefined && query.to === undefined
          ? {}
          : { occurredAt: { ...(query.from ? { gte: query.from } : {}), ...(query.to ? { lt: query.to } : {}) } },
      ],
    };
    const [rows, total] = await Promise.all([
      this.db.auditLog.findMany({
        where,
        orderBy: [{ occurredAt: 'desc' }, { id: 'asc' }],
        skip: (query.page - 1) * query.size,
        take: query.size,
      }),
      this.db.auditLog.count({ where }),
    ]);
    return {
      total,
      results: rows.map((row) => ({
        id: row.id,
        tenantId: row.tenantId,
        occurredAt: row.occurredAt,
        action: row.action,
        resourceType: row.resourceType,
        resourceId: row.resourceId,
        namespace: row.namespace,
        actor: { type: row.actorType as AuditActorKind, id: row.actorId, name: row.actorName },
        clientIp: row.clientIp,
        userAgent: row.userAgent,
        outcome: row.outcome as AuditOutcomeKind,
        status: row.status,
        correlationId: row.correlationId,
      })),
    };
  }
}
