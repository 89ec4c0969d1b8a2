import { isReservedWorkerQueueId, type PutOutcome, type WorkerQueueRecord, type WorkerQueueWrite } from '@lanner/model';
import { InUse, NotFound, ReservedEntity } from '../errors';
import type { WorkerQueue } from '../generated/prisma/client';
import { type Db, FOREIGN_KEY_VIOLATION, prismaErrorCode } from '../prisma';

/** Worker queues (instance-wide, not tenant-owned). */
export class WorkerQueueRepository {
  constructor(private readonly db: Db) {}

  async list(): Promise<WorkerQueueRecord[]> {
    const rows = await this.db.workerQueue.findMany({ orderBy: { id: 'asc' } });
    return rows.map(toWorkerQueueRecord);
  }

  async get(id: string): Promise<WorkerQueueRecord> {
    const row = await this.db.workerQueue.findUnique({ where: { id } });
    if (row === null) throw new NotFound('worker queue', id);
    return toWorkerQueueRecord(row);
  }

  async find(id: string): Promise<WorkerQueueRecord | null> {
    const row = await this.db.workerQueue.findUnique({ where: { id } });
    return row === null ? null : toWorkerQueueRecord(row);
  }

  /**
   * Idempotent create-or-replace (PUT). ReservedEntity for `default` and `system`.
   * `changed` is false when the stored queue already had these fields (nothing written).
   */
  async put(queue: WorkerQueueWrite): Promise<PutOutcome<WorkerQueueRecord> & { readonly changed: boolean }> {
    if (isReservedWorkerQueueId(queue.id)) throw new ReservedEntity('worker queue', queue.id);
    const fields = {
      tags: [...queue.tags],
      allowedTenants: [...(queue.allowedTenants ?? [])],
      description: queue.description ?? null,
    };
    return this.db.$transaction(async (tx) => {
      const existing = await tx.workerQueue.findUnique({ where: { id: queue.id } });
      // The same PUT again changes nothing, not even `updatedAt` (infrastructure as code repeats it on every run).
      if (existing !== null && sameQueueFields(existing, fields))
        return { record: toWorkerQueueRecord(existing), created: false, changed: false };
      const row = await tx.workerQueue.upsert({ where: { id: queue.id }, create: { id: queue.id, ...fields }, update: fields });
      return { record: toWorkerQueueRecord(row), created: existing === null, changed: true };
    });
  }

  /** ReservedEntity for reserved queues, InUse while a group subscribes to it, NotFound if absent. */
  async delete(id: string): Promise<void> {
    if (isReservedWorkerQueueId(id)) throw new ReservedEntity('worker queue', id);
    try {
      const { count } = await this.db.workerQueue.deleteMany({ where: { id } });
      if (count === 0) throw new NotFound('worker queue', id);
    } catch (error) {
      if (prismaErrorCode(error) === FOREIGN_KEY_VIOLATION) {
        const groups = await this.db.subscription.findMany({ where: { workerQueueId: id }, select: { workerGroupId: true } });
        throw new InUse('worker queue', id, `worker group(s) ${groups.map((g) => `'${g.workerGroupId}'`).join(', ')}`);
      }
      throw error;
    }
  }
}

function sameQueueFields(
  row: WorkerQueue,
  fields: { tags: string[]; allowedTenants: string[]; description: string | null },
): boolean {
  return (
    sameList(row.tags, fields.tags) &&
    sameList(row.allowedTenants, fields.allowedTenants) &&
    row.description === fields.description
  );
}

/** Tags and tenants are sets: the order they are given in carries no meaning. */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');
}

export function toWorkerQueueRecord(row: WorkerQueue): WorkerQueueRecord {
  return {
    id: row.id,
    tags: row.tags,
    allowedTenants: row.allowedTenants,
    description: row.description,
    reserved: row.reserved,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
