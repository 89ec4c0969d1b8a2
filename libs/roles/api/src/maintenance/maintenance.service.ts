import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { broadcastCodec, encodeQueueMessage, QUEUE_SCHEMA_VERSIONS, QueueTopics } from '@lanner/frames';
import type { QueuePort } from '@lanner/queue';
import type { InstanceMaintenanceRecord, Repositories } from '@lanner/repository';
import { MaintenanceMode, QUEUE, REPOSITORIES, ServiceInstanceIdentity } from '@lanner/runtime';
import { z } from 'zod';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { instant } from '../openapi/zod-openapi';

/** The header every API answer carries while the cluster is in maintenance mode. */
export const MAINTENANCE_HEADER = 'Lanner-Maintenance';

/** What the maintenance routes answer; the OpenAPI document is generated from it. */
export const MaintenanceViewSchema = z.object({
  // The audit log's resource id.
  scope: z.literal('instance').describe('Maintenance mode covers the whole cluster'),
  enabled: z.boolean(),
  enteredAt: instant().nullable().describe('When the current (or last) maintenance began'),
  enteredBy: z.string().nullable().describe('The API token or user that entered it'),
  exitedAt: instant().nullable().describe('When the last maintenance ended'),
});

export type MaintenanceView = z.output<typeof MaintenanceViewSchema>;

function viewOf(record: InstanceMaintenanceRecord): MaintenanceView {
  return {
    scope: 'instance',
    enabled: record.enabled,
    enteredAt: record.enteredAt?.toISOString() ?? null,
    enteredBy: record.enteredBy,
    exitedAt: record.exitedAt?.toISOString() ?? null,
  };
}

/**
 * Maintenance mode as the api serves it (RELIABILITY.md "Maintenance mode"):
 * entering and leaving store the state (the word of record, which every role
 * reads at start) and then broadcast it on `lanner.broadcast`, which every
 * role follows. This process follows it too, so every answer of the api says
 * when the cluster is in maintenance (`Lanner-Maintenance: true`).
 */
@Injectable()
export class MaintenanceService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MaintenanceService.name);
  private readonly topic: string;
  readonly mode: MaintenanceMode;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(QUEUE) private readonly queue: QueuePort,
    @Inject(API_ROLE_OPTIONS) options: ApiRoleOptions,
    @Optional() private readonly identity?: ServiceInstanceIdentity,
  ) {
    this.topic = `${options.topicPrefix ?? ''}${QueueTopics.broadcast}`;
    this.mode = new MaintenanceMode(repositories.maintenance, { follower: `api ${identity?.id ?? 'unregistered'}` });
  }

  onApplicationBootstrap(): void {
    this.mode.start();
    this.mode.follow(this.queue, this.topic, `lanner-api-broadcast-${this.identity?.id ?? randomUUID()}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.mode.stop();
  }

  /** True while the cluster is in maintenance, as this process last learnt it. */
  get inMaintenance(): boolean {
    return this.mode.enabled === true;
  }

  async current(): Promise<MaintenanceView> {
    return viewOf(await this.repositories.maintenance.get());
  }

  async enter(by: string, correlationId: string | undefined): Promise<MaintenanceView> {
    const record = await this.repositories.maintenance.enter(by, new Date());
    await this.announce(true, correlationId);
    this.logger.log({ enteredBy: by }, 'maintenance mode entered');
    return viewOf(record);
  }

  async exit(correlationId: string | undefined): Promise<MaintenanceView> {
    const record = await this.repositories.maintenance.exit(new Date());
    await this.announce(false, correlationId);
    this.logger.log({}, 'maintenance mode left');
    return viewOf(record);
  }

  /** After the store: a role that misses the broadcast reads the stored state within seconds. */
  private async announce(enabled: boolean, correlationId: string | undefined): Promise<void> {
    this.mode.apply(enabled);
    await this.queue.publish(this.topic, [
      encodeQueueMessage(broadcastCodec, {
        schemaVersion: QUEUE_SCHEMA_VERSIONS['broadcast.maintenance'],
        messageId: randomUUID(),
        occurredAt: new Date().toISOString(),
        ...(correlationId === undefined ? {} : { correlationId }),
        type: 'broadcast.maintenance',
        payload: { enabled },
      }),
    ]);
  }
}
