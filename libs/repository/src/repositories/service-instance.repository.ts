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
    const row = await this.db.serviceInstance.upsert({ where: { id: instance.id }, create: { id: instance.id, ...fields }, update: fields });
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

  /** Instances in `state` whose last heartbeat is older than `before` (for the liveness coordinator). */
  async listSilentSince(state: ServiceInstanceRecordState, before: Date): Promise<ServiceInstanceRecord[]> {
    const rows = await this.db.serviceInstance.findMany({ where: { state, heartbeatAt: { lt: before } }, orderBy: { heartbeatAt: 'asc' } });
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
