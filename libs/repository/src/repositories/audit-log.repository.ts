import { toStorableText } from '@lanner/model';
import type { Pool } from 'pg';
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
  /** `pool` is the one under `db`: a write is one statement on it, without Prisma's query pipeline. */
  constructor(
    private readonly db: Db,
    private readonly pool: Pool,
  ) {}

  /**
   * Stores the entries not stored yet; returns how many were added. One
   * statement whatever their number; an entry whose id is stored already (or
   * that comes twice in the call) is left out (ON CONFLICT DO NOTHING).
   */
  async append(entries: readonly AuditLogRecord[]): Promise<number> {
    if (entries.length === 0) return 0;
    const added = await this.pool.query(
      `INSERT INTO audit_logs (id, tenant_id, occurred_at, action, resource_type, resource_id, namespace,
        actor_type, actor_id, actor_name, client_ip, user_agent, outcome, status, correlation_id)
      SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[],
        $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::int[], $15::text[])
      ON CONFLICT (id) DO NOTHING`,
      [
        entries.map((entry) => entry.id),
        entries.map((entry) => bounded(entry.tenantId)),
        entries.map((entry) => entry.occurredAt.toISOString()),
        entries.map((entry) => entry.action),
        entries.map((entry) => entry.resourceType),
        entries.map((entry) => bounded(entry.resourceId)),
        entries.map((entry) => bounded(entry.namespace)),
        entries.map((entry) => entry.actor.type),
        entries.map((entry) => bounded(entry.actor.id)),
        entries.map((entry) => bounded(entry.actor.name)),
        entries.map((entry) => bounded(entry.clientIp)),
        entries.map((entry) => bounded(entry.userAgent)),
        entries.map((entry) => entry.outcome),
        entries.map((entry) => entry.status),
        entries.map((entry) => bounded(entry.correlationId)),
      ],
    );
    return added.rowCount ?? 0;
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
