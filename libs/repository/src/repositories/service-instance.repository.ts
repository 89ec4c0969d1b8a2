import type { ServiceInstanceRecord, ServiceInstanceRecordState, ServiceInstanceRegistration } from '@lanner/model';
import { NotFound } from '../errors';
import type { ServiceInstance } from '../generated/prisma/client';
import { type Db, jsonColumn, storedJson } from '../prisma';

/** Service instances of every role and their heartbeats (liveness). Time is always an argument. */
export class ServiceInstanceRepository {
  constructor(private readonly db: Db) {}

  /** Registers (or re-registers after a restart with the same id) as RUNNING at `at`. */
  async register(instance: ServiceInstanceRegistration, at: Date): Promise<ServiceInstanceRecord> {
    const fields = {
      role: instance.role,
      host: instance.host,
      state: 'RUNNING' as const,
      startedAt: at,
      heartbeatAt: at,
      stateChangedAt: at,
      metadata: jsonColumn(instance.metadata ?? null),
    };
    const row = await this.db.serviceInstance.upsert({
      where: { id: instance.id },
      create: { id: instance.id, ...fields },
      update: fields,
    });
    return toServiceInstanceRecord(row);
  }

  /** Records a heartbeat. NotFound if the instance was purged (it must register again). */
  async heartbeat(id: string, at: Date): Promise<ServiceInstanceRecord> {
    const { count } = await this.db.serviceInstance.updateMany({ where: { id }, data: { heartbeatAt: at } });
    if (count === 0) throw new NotFound('service instance', id);
    return this.get(id);
  }

  async setState(id: string, state: ServiceInstanceRecordState, at: Date): Promise<ServiceInstanceRecord> {
    const { count } = await this.db.serviceInstance.updateMany({ where: { id }, data: { state, stateChangedAt: at } });
    if (count === 0) throw new NotFound('service instance', id);
    return this.get(id);
  }

  async get(id: string): Promise<ServiceInstanceRecord> {
    const row = await this.db.serviceInstance.findUnique({ where: { id } });
    if (row === null) throw new NotFound('service instance', id);
    return toServiceInstanceRecord(row);
  }

  async list(): Promise<ServiceInstanceRecord[]> {
    const rows = await this.db.serviceInstance.findMany({ orderBy: [{ role: 'asc' }, { id: 'asc' }] });
    return rows.map(toServiceInstanceRecord);
  }

  /**
   * The instance's own periodic heartbeat: records `at`, and brings an instance
   * the coordinator had marked DISCONNECTED (a pause, a database blip) back to
   * RUNNING. Returns the state after the write; NotFound when the row is gone
   * (purged: the instance registers again).
   */
  async recordHeartbeat(id: string, at: Date): Promise<ServiceInstanceRecordState> {
    const rows = await this.db.$queryRaw<{ state: ServiceInstanceRecordState }[]>`
      UPDATE service_instances
      SET heartbeat_at = ${at},
          state = CASE WHEN state = 'DISCONNECTED' THEN 'RUNNING'::service_instance_state ELSE state END,
          state_changed_at = CASE WHEN state = 'DISCONNECTED' THEN ${at} ELSE state_changed_at END
      WHERE id = ${id}
      RETURNING state::text AS state`;
    if (rows.length === 0) throw new NotFound('service instance', id);
    return rows[0].state;
  }

  /**
   * Moves every instance in one of `from` whose last heartbeat is older than
   * `silentBefore` (and, when given, whose state changed before
   * `inStateBefore`) to `to` at `at`, and returns the moved instances. One
   * statement: a heartbeat that lands first keeps its instance out of it.
   */
  async transitionSilent(
    from: readonly ServiceInstanceRecordState[],
    to: ServiceInstanceRecordState,
    silentBefore: Date,
    at: Date,
    inStateBefore?: Date,
  ): Promise<ServiceInstanceRecord[]> {
    const rows = await this.db.serviceInstance.updateManyAndReturn({
      where: {
        state: { in: [...from] },
        heartbeatAt: { lt: silentBefore },
        ...(inStateBefore === undefined ? {} : { stateChangedAt: { lt: inStateBefore } }),
      },
      data: { state: to, stateChangedAt: at },
    });
    return rows.map(toServiceInstanceRecord);
  }

  /** Instances in one of `states` that entered it before `before`, oldest first. */
  async listInStateSince(states: readonly ServiceInstanceRecordState[], before: Date): Promise<ServiceInstanceRecord[]> {
    const rows = await this.db.serviceInstance.findMany({
      where: { state: { in: [...states] }, stateChangedAt: { lt: before } },
      orderBy: { stateChangedAt: 'asc' },
    });
    return rows.map(toServiceInstanceRecord);
  }

  /**
   * Deletes instances in one of `states` that entered it before `before` (old
   * rows) and hold no running job any more (those rows are how the coordinator
   * finds orphaned jobs); returns how many.
   */
  async purge(states: readonly ServiceInstanceRecordState[], before: Date): Promise<number> {
    const where = { state: { in: [...states] }, stateChangedAt: { lt: before } };
    const candidates = (await this.db.serviceInstance.findMany({ where, select: { id: true } })).map((row) => row.id);
    if (candidates.length === 0) return 0;
    const busy = await this.db.runningJob.findMany({
      where: { controllerInstanceId: { in: candidates } },
      select: { controllerInstanceId: true },
      distinct: ['controllerInstanceId'],
    });
    const held = new Set(busy.map((row) => row.controllerInstanceId));
    const ids = candidates.filter((id) => !held.has(id));
    if (ids.length === 0) return 0;
    const { count } = await this.db.serviceInstance.deleteMany({ where: { ...where, id: { in: ids } } });
    return count;
  }

  /** Instances in `state` whose last heartbeat is older than `before` (for the liveness coordinator). */
  async listSilentSince(state: ServiceInstanceRecordState, before: Date): Promise<ServiceInstanceRecord[]> {
    const rows = await this.db.serviceInstance.findMany({
      where: { state, heartbeatAt: { lt: before } },
      orderBy: { heartbeatAt: 'asc' },
    });
    return rows.map(toServiceInstanceRecord);
  }
}

function toServiceInstanceRecord(row: ServiceInstance): ServiceInstanceRecord {
  return {
    id: row.id,
    role: row.role,
    host: row.host,
    state: row.state,
    startedAt: row.startedAt,
    heartbeatAt: row.heartbeatAt,
    stateChangedAt: row.stateChangedAt,
    metadata: storedJson(row.metadata),
  };
}
