import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Role } from '../config/roles';

/** How `service_instances.role` names a process role. */
export type ServiceInstanceRole = 'API' | 'EXECUTOR' | 'CONTROLLER' | 'WORKER' | 'SCHEDULER' | 'INDEXER' | 'STANDALONE';

/**
 * This process as the cluster sees it: one id for the life of the process,
 * registered in `service_instances`. The controller records its running jobs
 * under this same id, so the liveness coordinator can find them when the
 * process dies; in standalone every role shares it.
 */
export class ServiceInstanceIdentity {
  readonly role: ServiceInstanceRole;
  readonly host: string;
  readonly id: string;

  constructor(role: Role, id?: string) {
    this.role = role.toUpperCase() as ServiceInstanceRole;
    this.host = hostname();
    this.id = id ?? `${role}-${this.host}-${randomUUID().slice(0, 8)}`;
  }
}
