import type { StoredJson } from '@lanner/model';
import { AlreadyExists, NotFound } from '../errors';
import type { ServedTenantId } from './tenant-scope';
import { type Db, jsonColumn, prismaErrorCode, storedJson, UNIQUE_VIOLATION } from '../prisma';

/** A tenant as the instance API lists it. */
export interface TenantRecord {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly disabledAt: Date | null;
}

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

  async list(): Promise<TenantRecord[]> {
    const rows = await this.db.tenant.findMany({ orderBy: { id: 'asc' } });
    return rows.map(({ id, name, createdAt, disabledAt }) => ({ id, name, createdAt, disabledAt }));
  }

  async create(tenant: { id: string; name: string }): Promise<TenantRecord> {
    try {
      const { id, name, createdAt, disabledAt } = await this.db.tenant.create({ data: tenant });
      return { id, name, createdAt, disabledAt };
    } catch (error) {
      if (prismaErrorCode(error) === UNIQUE_VIOLATION) throw new AlreadyExists('tenant', tenant.id);
      throw error;
    }
  }

  /** Disables (at) or enables (null) the tenant; NotFound when it does not exist. */
  async setDisabled(id: string, at: Date | null): Promise<TenantRecord> {
    const updated = await this.db.tenant.updateMany({ where: { id }, data: { disabledAt: at } });
    if (updated.count === 0) throw new NotFound('tenant', id);
    const row = await this.db.tenant.findUniqueOrThrow({ where: { id } });
    return { id: row.id, name: row.name, createdAt: row.createdAt, disabledAt: row.disabledAt };
  }

  /** Whether the tenant was created (disabled or not). */
  async exists(id: string): Promise<boolean> {
    return (await this.db.tenant.count({ where: { id } })) > 0;
  }

  /**
   * The id, vouched for, when the tenant exists and is enabled; null otherwise (the
   * routes of any other tenant id answer 404). A tenant scope is made from it only.
   */
  async served(id: string): Promise<ServedTenantId | null> {
    const row = await this.db.tenant.findUnique({ where: { id }, select: { disabledAt: true } });
    return row !== null && row.disabledAt === null ? (id as ServedTenantId) : null;
  }
}
