import { Inject, Injectable } from '@nestjs/common';
import type { ConnectedWorkerRecord, ServiceInstanceRecord } from '@lanner/model';
import { CONNECTED_WORKER_STALE_MS, type Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';

/** What runs: the live worker registry (written by controllers) and the service instances of every role. */
@Injectable()
export class WorkerFleetService {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  /** The group's workers whose controller refreshed them recently; rows of a dead controller age out. */
  async connectedWorkers(groupId: string): Promise<ConnectedWorkerRecord[]> {
    await this.repositories.workerGroups.get(groupId);
    return this.repositories.connectedWorkers.listLiveByGroup(groupId, new Date(Date.now() - CONNECTED_WORKER_STALE_MS));
  }

  services(): Promise<ServiceInstanceRecord[]> {
    return this.repositories.serviceInstances.list();
  }
}
