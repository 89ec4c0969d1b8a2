import type { StoredJson } from '@lanner/model';
import { type Db, jsonColumn, storedJson } from '../prisma';

/** A namespace's settings row as the executor reads it: the worker selector it declares, as stored. */
export interface NamespaceWorkerSelectorRecord {
  readonly namespace: string;
  /** The selector JSON as written (validated by its reader, which names the namespace in any problem). */
  readonly workerSelector: StoredJson;
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
