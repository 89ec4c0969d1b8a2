import type { StoredJson } from '@lanner/model';
import { type Db, jsonColumn, storedJson } from '../prisma';

/**
 * Tenant settings (`tenants` table). The executor reads the tenant's default
 * worker selector: the last level of a task's selector resolution (WORKERS.md).
 */
export class TenantRepository {
  constructor(private readonly db: Db) {}

  /** The tenant's declared worker selector as stored, or null when it declares none (or has no settings row). */
  async getWorkerSelector(tenantId: string): Promise<StoredJson> {
    const row = await this.db.tenant.findUnique({ where: { id: tenantId }, select: { workerSelector: true } });
    return row === null ? null : storedJson(row.workerSelector);
  }

  /** Sets (or with null clears) the tenant's default worker selector, creating its row (named after its id) when missing. */
  async setWorkerSelector(tenantId: string, workerSelector: StoredJson): Promise<void> {
    const column = jsonColumn(workerSelector);
    await this.db.tenant.upsert({
      where: { id: tenantId },
      create: { id: tenantId, name: tenantId, workerSelector: column },
      update: { workerSelector: column },
    });
  }
}
