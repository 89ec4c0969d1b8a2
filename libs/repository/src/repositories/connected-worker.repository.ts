import type { ConnectedWorkerRecord, ConnectedWorkerWrite } from '@lanner/model';
import type { ConnectedWorker } from '../generated/prisma/client';
import { type Db, jsonColumn, storedJson } from '../prisma';

/** How often a controller refreshes its rows (touchController). */
export const CONNECTED_WORKER_REFRESH_MS = 3_000;
/** A row not refreshed for this long belongs to a dead controller: readers pass `now - CONNECTED_WORKER_STALE_MS` as `freshSince`. */
export const CONNECTED_WORKER_STALE_MS = 15_000;

/**
 * The live worker registry: one row per open worker stream, owned by the
 * controller holding it. Readers pass a staleness cut-off, so rows left by a
 * controller that died (and never removed them) stop counting on their own.
 */
export class ConnectedWorkerRepository {
  constructor(private readonly db: Db) {}

  /** Writes the stream's row (insert or replace) with `heartbeatAt = at`. */
  async upsert(worker: ConnectedWorkerWrite, at: Date): Promise<void> {
    const fields = {
      workerGroupId: worker.workerGroupId,
      workerName: worker.workerName,
      controllerInstanceId: worker.controllerInstanceId,
      registrationTokenId: worker.registrationTokenId,
      slots: worker.slots,
      draining: worker.draining,
      queueIds: [...worker.queueIds],
      capacity: jsonColumn(worker.capacity),
      labels: jsonColumn(worker.labels),
      connectedAt: worker.connectedAt,
      heartbeatAt: at,
    };
    await this.db.connectedWorker.upsert({ where: { workerId: worker.workerId }, create: { workerId: worker.workerId, ...fields }, update: fields });
  }

  /** Marks every row of the controller as alive at `at` (its periodic refresh). */
  async touchController(controllerInstanceId: string, at: Date): Promise<number> {
    const { count } = await this.db.connectedWorker.updateMany({ where: { controllerInstanceId }, data: { heartbeatAt: at } });
    return count;
  }

  /** Removes the stream's row, only if this controller still owns it (the worker may have reconnected elsewhere). */
  async remove(workerId: string, controllerInstanceId: string): Promise<void> {
    await this.db.connectedWorker.deleteMany({ where: { workerId, controllerInstanceId } });
  }

  /** Removes every row of a controller (at its shutdown). */
  async removeController(controllerInstanceId: string): Promise<void> {
    await this.db.connectedWorker.deleteMany({ where: { controllerInstanceId } });
  }

  /** Every row refreshed at or after `freshSince`, by group then worker id. */
  async listLive(freshSince: Date): Promise<ConnectedWorkerRecord[]> {
    const rows = await this.db.connectedWorker.findMany({
      where: { heartbeatAt: { gte: freshSince } },
      orderBy: [{ workerGroupId: 'asc' }, { workerId: 'asc' }],
    });
    return rows.map(toConnectedWorkerRecord);
  }

  /** The group's rows refreshed at or after `freshSince`, by worker id. */
  async listLiveByGroup(workerGroupId: string, freshSince: Date): Promise<ConnectedWorkerRecord[]> {
    const rows = await this.db.connectedWorker.findMany({
      where: { workerGroupId, heartbeatAt: { gte: freshSince } },
      orderBy: { workerId: 'asc' },
    });
    return rows.map(toConnectedWorkerRecord);
  }

  /** Deletes rows older than `before` (left by dead controllers). */
  async purgeStale(before: Date): Promise<number> {
    const { count } = await this.db.connectedWorker.deleteMany({ where: { heartbeatAt: { lt: before } } });
    return count;
  }
}

function toConnectedWorkerRecord(row: ConnectedWorker): ConnectedWorkerRecord {
  return {
    workerId: row.workerId,
    workerGroupId: row.workerGroupId,
    workerName: row.workerName,
    controllerInstanceId: row.controllerInstanceId,
    registrationTokenId: row.registrationTokenId,
    slots: row.slots,
    draining: row.draining,
    queueIds: row.queueIds,
    capacity: storedJson(row.capacity),
    labels: storedJson(row.labels),
    connectedAt: row.connectedAt,
    heartbeatAt: row.heartbeatAt,
  };
}
