import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createInternalStorage, deregisterController, registerController, type InternalStorage } from '@lanner/storage';
import { CLOCK, type Clock } from './clock';
import { CONTROLLER_SETTINGS, ControllerIdentity, type ControllerSettings } from './controller-settings';
import { WorkerGrpcServer } from './worker-grpc.server';

/** An entry counts for this many refresh periods after it was written: one missed refresh is not a departure. */
const ENTRY_LIFETIME_PERIODS = 3;

/**
 * Registers this controller in internal storage for workers' STORAGE discovery (when
 * LANNER_CONTROLLER_ADVERTISED_HOST is set): `<advertised host>:<bound gRPC port>`, written
 * once the gRPC server listens, rewritten every refresh period with a new expiry, and
 * removed when the controller stops. A store that cannot be written is logged and tried
 * again at the next period; it never stops the controller.
 */
@Injectable()
export class ControllerRegistration implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ControllerRegistration.name);
  private storage: InternalStorage | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private registered = false;
  private stopped = false;

  constructor(
    @Inject(CONTROLLER_SETTINGS) private readonly settings: ControllerSettings,
    private readonly identity: ControllerIdentity,
    private readonly server: WorkerGrpcServer,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    const registration = this.settings.registration;
    if (!registration) return;
    this.storage = createInternalStorage(registration.storage);
    void this.server.listening.then((port) => {
      if (this.stopped) return;
      const refresh = () => {
        this.refreshing = this.refresh(registration.advertisedHost, port, registration.refreshS * 1000);
      };
      refresh();
      this.timer = setInterval(refresh, registration.refreshS * 1000);
      this.timer.unref();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.refreshing;
    if (!this.storage || !this.registered) return;
    await deregisterController(this.storage, this.identity.id).then(
      () => this.logger.log({ controllerId: this.identity.id }, 'removed from internal storage: workers no longer discover it'),
      (error: unknown) =>
        this.logger.warn({ reason: reasonOf(error) }, 'cannot remove its entry from internal storage; it expires'),
    );
  }

  private async refresh(host: string, port: number, periodMs: number): Promise<void> {
    if (!this.storage || this.stopped) return;
    const now = this.clock.nowMs();
    try {
      await registerController(this.storage, {
        instanceId: this.identity.id,
        host,
        port,
        refreshedAt: now,
        expiresAt: now + ENTRY_LIFETIME_PERIODS * periodMs,
      });
      if (!this.registered) {
        this.registered = true;
        this.logger.log(
          { controllerId: this.identity.id, endpoint: `${host}:${port}` },
          'registered in internal storage for worker discovery',
        );
      }
    } catch (error) {
      this.logger.warn(
        { reason: reasonOf(error) },
        'cannot write its entry to internal storage; workers with STORAGE discovery may not find it',
      );
    }
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
