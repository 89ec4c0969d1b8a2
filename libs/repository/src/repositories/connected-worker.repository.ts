import type { ConnectedWorkerRecord, ConnectedWorkerWrite, StoredJson } from '@lanner/model';
import type { Pool } from 'pg';
import { BatchedCalls } from '../batched-calls';
import { Prisma, type ConnectedWorker } from '../generated/prisma/client';
import { type Db, storedJson } from '../prisma';

/** How often a controller refreshes its heartbeat, which keeps all its rows live (touchController). */
export const CONNECTED_WORKER_REFRESH_MS = 3_000;
/** A row not refreshed for this long belongs to a dead controller: readers pass `now - CONNECTED_WORKER_STALE_MS` as `freshSince`. */
export const CONNECTED_WORKER_STALE_MS = 15_000;

/** The type of each of a row's 12 parameters, in column order (see upsertAll). */
const ROW_CASTS = [
  '',
  '',
  '',
  '',
  '::uuid',
  '::int',
  '::boolean',
  '::text[]',
  '::jsonb',
  '::jsonb',
  '::timestamptz',
  '::timestamptz',
];

/**
 * The live worker registry: one row per open worker stream, owned by the
 * controller holding it. Readers pass a staleness cut-off, so rows left by a
 * controller that died (and never removed them) stop counting on their own.
 */
export class ConnectedWorkerRepository {
  /**
   * Row writes that arrive while one is in flight go together in one
   * statement: a controller with thousands of busy workers rewrites many rows
   * a second, and one statement per row would cost as many round trips.
   */
  private readonly upserts = new BatchedCalls<{ worker: ConnectedWorkerWrite; at: Date }, void>(async (writes) => {
    await this.upsertAll(writes);
    return writes.map(() => undefined);
  });

  /**
   * `pool` is the one under `db`: row writes go to it directly, without
   * Prisma's query pipeline, since a controller with busy workers writes rows
   * many times a second (each carries the worker's capacity JSON).
   */
  constructor(
    private readonly db: Db,
    private readonly pool: Pool,
  ) {}

  /** Writes the stream's row (insert or replace) with `heartbeatAt = at`. */
  upsert(worker: ConnectedWorkerWrite, at: Date): Promise<void> {
    return this.upserts.call({ worker, at });
  }

  private async upsertAll(writes: readonly { worker: ConnectedWorkerWrite; at: Date }[]): Promise<void> {
    // One row per worker per statement (PostgreSQL refuses to update a row twice in one INSERT): the last write wins.
    const latest = new Map<string, { worker: ConnectedWorkerWrite; at: Date }>();
    for (const write of writes) latest.set(write.worker.workerId, write);
    const json = (value: StoredJson | undefined) => (value === undefined || value === null ? null : JSON.stringify(value));
    // Rows are locked in worker id order, so two batches touching the same workers never deadlock.
    const ordered = [...latest.values()].sort((a, b) =>
      a.worker.workerId < b.worker.workerId ? -1 : a.worker.workerId > b.worker.workerId ? 1 : 0,
    );
    const values: unknown[] = [];
    const rows = ordered.map(({ worker, at }) => {
      const first =
        values.push(
          worker.workerId,
          worker.workerGroupId,
          worker.workerName,
          worker.controllerInstanceId,
          worker.registrationTokenId,
          worker.slots,
          worker.draining,
          [...worker.queueIds],
          json(worker.capacity),
          json(worker.labels),
          worker.connectedAt,
          at,
        ) - 11;
      return `(${ROW_CASTS.map((cast, index) => `$${first + index}${cast}`).join(', ')})`;
    });
    await this.pool.query(
      `INSERT INTO connected_workers (
        worker_id, worker_group_id, worker_name, controller_instance_id,
        registration_token_id, slots, draining, queue_ids,
        capacity, labels, connected_at, heartbeat_at)
      VALUES ${rows.join(', ')}
      ON CONFLICT (worker_id) DO UPDATE SET
        worker_group_id = EXCLUDED.worker_group_id, worker_name = EXCLUDED.worker_name,
        controller_instance_id = EXCLUDED.controller_instance_id, registration_token_id = EXCLUDED.registration_token_id,
        slots = EXCLUDED.slots, draining = EXCLUDED.draining, queue_ids = EXCLUDED.queue_ids,
        capacity = EXCLUDED.capacity, labels = EXCLUDED.labels,
        connected_at = EXCLUDED.connected_at, heartbeat_at = EXCLUDED.heartbeat_at`,
      values,
    );
  }

  /**
   * Marks every row of the controller as alive at `at` (its periodic refresh):
   * one row of `controller_heartbeats`, however many workers it holds.
   */
  async touchController(controllerInstanceId: string, at: Date): Promise<void> {
    await this.db.controllerHeartbeat.upsert({
      where: { controllerInstanceId },
      create: { controllerInstanceId, heartbeatAt: at },
      update: { heartbeatAt: at },
    });
  }

  /** Removes the stream's row, only if this controller still owns it (the worker may have reconnected elsewhere). */
  async remove(workerId: string, controllerInstanceId: string): Promise<void> {
    await this.db.connectedWorker.deleteMany({ where: { workerId, controllerInstanceId } });
  }

  /** Removes every row of a controller, and its heartbeat (at its shutdown, or once it is known dead). */
  async removeController(controllerInstanceId: string): Promise<void> {
    await this.db.$transaction([
      this.db.connectedWorker.deleteMany({ where: { controllerInstanceId } }),
      this.db.controllerHeartbeat.deleteMany({ where: { controllerInstanceId } }),
    ]);
  }

  /**
   * Every live row (written, or its controller refreshed, at or after
   * `freshSince`), by group then worker id; `heartbeatAt` is the later of the two.
   */
  async listLive(freshSince: Date): Promise<ConnectedWorkerRecord[]> {
    return this.listLiveWhere({}, freshSince);
  }

  /** The group's live rows (as `listLive`), by worker id. */
  async listLiveByGroup(workerGroupId: string, freshSince: Date): Promise<ConnectedWorkerRecord[]> {
    return this.listLiveWhere({ workerGroupId }, freshSince);
  }

  /** Deletes rows older than `before` whose controller did not refresh since either (left by dead controllers), and those controllers' heartbeats. */
  async purgeStale(before: Date): Promise<number> {
    const alive = await this.freshControllers(before);
    const { count } = await this.db.connectedWorker.deleteMany({
      where: { heartbeatAt: { lt: before }, controllerInstanceId: { notIn: [...alive.keys()] } },
    });
    await this.db.controllerHeartbeat.deleteMany({ where: { heartbeatAt: { lt: before } } });
    return count;
  }

  private async listLiveWhere(where: Prisma.ConnectedWorkerWhereInput, freshSince: Date): Promise<ConnectedWorkerRecord[]> {
    const alive = await this.freshControllers(freshSince);
    const rows = await this.db.connectedWorker.findMany({
      where: { ...where, OR: [{ heartbeatAt: { gte: freshSince } }, { controllerInstanceId: { in: [...alive.keys()] } }] },
      orderBy: [{ workerGroupId: 'asc' }, { workerId: 'asc' }],
    });
    return rows.map((row) => {
      const refreshedAt = alive.get(row.controllerInstanceId);
      return toConnectedWorkerRecord(
        refreshedAt !== undefined && refreshedAt > row.heartbeatAt ? { ...row, heartbeatAt: refreshedAt } : row,
      );
    });
  }

  /** Controllers refreshed at or after `since`, with when. */
  private async freshControllers(since: Date): Promise<Map<string, Date>> {
    const rows = await this.db.controllerHeartbeat.findMany({ where: { heartbeatAt: { gte: since } } });
    return new Map(rows.map((row) => [row.controllerInstanceId, row.heartbeatAt]));
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
