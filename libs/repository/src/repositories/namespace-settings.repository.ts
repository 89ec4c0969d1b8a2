import type { StoredJson } from '@lanner/model';
import type { Prisma } from '../generated/prisma/client';
import { type Db, jsonColumn, storedJson } from '../prisma';

/** A namespace's settings row as the executor reads it: the worker selector it declares, as stored. */
export interface NamespaceWorkerSelectorRecord {
  readonly namespace: string;
  /** The selector JSON as written (validated by its reader, which names the namespace in any problem). */
  readonly workerSelector: StoredJson;
}

/** A namespace as the API lists it: its live flows and its declared settings. */
export interface NamespaceSummary {
  readonly namespace: string;
  readonly flowCount: number;
  readonly workerSelector: StoredJson;
  readonly variables: StoredJson;
}

interface NamespaceSummaryRow {
  readonly namespace: string;
  readonly flow_count: number;
  readonly worker_selector: Prisma.JsonValue | null;
  readonly variables: Prisma.JsonValue | null;
}

/**
 * Namespace settings (`namespaces` table), per tenant. The executor reads the
 * declared worker selectors to resolve the namespace level of a task's selector
 * (nearest ancestor first, WORKERS.md).
 */
export class NamespaceRepository {
  constructor(private readonly db: Db) {}

  /** Every namespace of the tenant that declares a worker selector, by namespace. */
  async listWorkerSelectors(tenantId: string): Promise<NamespaceWorkerSelectorRecord[]> {
    const rows = await this.db.namespace.findMany({
      where: { tenantId },
      select: { namespace: true, workerSelector: true },
      orderBy: { namespace: 'asc' },
    });
    return rows
      .filter((row) => row.workerSelector !== null)
      .map((row) => ({ namespace: row.namespace, workerSelector: storedJson(row.workerSelector) }));
  }

  /**
   * The tenant's namespaces: each one holding a live flow or a settings row, by
   * namespace; with `within`, only that namespace and its children.
   */
  async list(tenantId: string, within?: string): Promise<NamespaceSummary[]> {
    const prefix = within ?? null;
    const rows = await this.db.$queryRaw<NamespaceSummaryRow[]>`
      WITH latest AS (
        SELECT DISTINCT ON (namespace, flow_id) namespace, deleted
        FROM flows
        WHERE tenant_id = ${tenantId}
        ORDER BY namespace, flow_id, revision DESC
      ), counts AS (
        SELECT namespace, count(*)::int AS flow_count FROM latest WHERE NOT deleted GROUP BY namespace
      ), settings AS (
        SELECT namespace, worker_selector, variables FROM namespaces WHERE tenant_id = ${tenantId}
      )
      SELECT coalesce(c.namespace, s.namespace) AS namespace, coalesce(c.flow_count, 0) AS flow_count,
             s.worker_selector, s.variables
      FROM counts c FULL OUTER JOIN settings s ON s.namespace = c.namespace
      WHERE ${prefix}::text IS NULL
         OR coalesce(c.namespace, s.namespace) = ${prefix}
         OR starts_with(coalesce(c.namespace, s.namespace), ${prefix} || '.')
      ORDER BY 1`;
    return rows.map((row) => ({
      namespace: row.namespace,
      flowCount: row.flow_count,
      workerSelector: storedJson(row.worker_selector),
      variables: storedJson(row.variables),
    }));
  }

  /** Sets (or with null clears) the namespace's worker selector, creating its settings row when missing. */
  async setWorkerSelector(tenantId: string, namespace: string, workerSelector: StoredJson): Promise<void> {
    const column = jsonColumn(workerSelector);
    await this.db.namespace.upsert({
      where: { tenantId_namespace: { tenantId, namespace } },
      create: { tenantId, namespace, workerSelector: column },
      update: { workerSelector: column },
    });
  }
}
