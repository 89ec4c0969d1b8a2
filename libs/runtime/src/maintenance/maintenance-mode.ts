import { Logger } from '@nestjs/common';
import { broadcastCodec, decodeQueueMessage, type BroadcastMessage } from '@lanner/frames';

/**
 * The shape of @lanner/queue that the follower uses: the runtime is also the worker's,
 * which may not depend on the server's queue library (see RepositoryAdapterLibrary).
 */
interface QueueMessage {
  readonly value: Buffer;
}
interface QueueSubscription {
  close(): Promise<void>;
}
interface BroadcastQueue {
  subscribe(options: {
    groupId: string;
    topics: string[];
    handler: (message: QueueMessage) => Promise<void>;
  }): Promise<QueueSubscription>;
}

/**
 * The part of @lanner/repository's `maintenance` repository the follower reads.
 * The runtime does not import the repository library (see RepositoryAdapterLibrary).
 */
export interface MaintenanceStore {
  get(): Promise<{ readonly enabled: boolean }>;
}

export interface MaintenanceModeOptions {
  /** Who follows (a log field): the role and its instance id. */
  readonly follower: string;
  /** How often the stored state is read again, in case a broadcast was missed (a restart between a read and a subscribe). */
  readonly refreshMs?: number;
}

/** Reading the store again this often bounds how late a role that missed the broadcast learns of a change. */
export const MAINTENANCE_REFRESH_MS = 5_000;
const RETRY_MS = 2_000;

/**
 * What a role knows of maintenance mode (RELIABILITY.md "Maintenance mode"):
 * the stored state (PostgreSQL, read at start and every few seconds) and
 * every `broadcast.maintenance` on `lanner.broadcast`. Until the first read
 * answered the state is unknown, and a role that must not start work during
 * maintenance treats unknown as on (`holdsWork`): a role restarted during
 * maintenance comes back paused, never running one job first.
 *
 * `follow` subscribes to the broadcast topic with a consumer group of its own
 * (each process reads every broadcast); a role that already reads the topic
 * (the controller) hands the messages to `apply` instead.
 */
export class MaintenanceMode {
  private readonly logger = new Logger(MaintenanceMode.name);
  private readonly listeners = new Set<(enabled: boolean) => void>();
  private readonly refreshMs: number;
  private state: boolean | undefined;
  private timer: NodeJS.Timeout | undefined;
  private subscription: QueueSubscription | undefined;
  private stopped = false;
  private failing = false;
  private reading: Promise<boolean | undefined> | undefined;

  constructor(
    private readonly store: MaintenanceStore,
    private readonly options: MaintenanceModeOptions,
  ) {
    this.refreshMs = options.refreshMs ?? MAINTENANCE_REFRESH_MS;
  }

  /** True in maintenance; undefined until the stored state was read once. */
  get enabled(): boolean | undefined {
    return this.state;
  }

  /** Whether work must wait: in maintenance, or not known yet. */
  get holdsWork(): boolean {
    return this.state !== false;
  }

  /** Told on every change (after the first read too). */
  onChange(listener: (enabled: boolean) => void): void {
    this.listeners.add(listener);
  }

  /** Reads the stored state now and starts reading it again every few seconds. Never throws. */
  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  /** Follows `lanner.broadcast` (topic given, prefixes included) in a group of its own; retried in the background. */
  follow(queue: BroadcastQueue, topic: string, groupId: string): void {
    const attempt = async (): Promise<void> => {
      while (!this.stopped) {
        try {
          const subscription = await queue.subscribe({ groupId, topics: [topic], handler: (message) => this.handle(message) });
          if (this.stopped) await subscription.close();
          else this.subscription = subscription;
          // A broadcast sent before the subscription took effect is caught by this read.
          await this.refresh();
          return;
        } catch (error) {
          this.logger.warn(
            { follower: this.options.follower, reason: error instanceof Error ? error.message : String(error) },
            'cannot follow maintenance broadcasts yet; will retry',
          );
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
        }
      }
    };
    void attempt();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.subscription?.close().catch(() => undefined);
    this.subscription = undefined;
  }

  /** Reads the stored state now (the word of record); undefined when the store does not answer. */
  async refresh(): Promise<boolean | undefined> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** A `broadcast.maintenance` read from the topic. */
  apply(enabled: boolean): void {
    if (this.state === enabled) return;
    const before = this.state;
    this.state = enabled;
    this.logger.log(
      { follower: this.options.follower, maintenance: enabled },
      enabled
        ? 'maintenance mode: in-flight work drains, new work waits'
        : before === undefined
          ? 'not in maintenance mode'
          : 'maintenance mode over: waiting work resumes',
    );
    for (const listener of this.listeners) listener(enabled);
  }

  /** The handler of a broadcast message; other broadcasts are ignored. */
  async handle(message: QueueMessage): Promise<void> {
    let broadcast: BroadcastMessage;
    try {
      broadcast = decodeQueueMessage(broadcastCodec, message.value);
    } catch {
      return; // another consumer of the topic logs what it cannot read
    }
    if (broadcast.type === 'broadcast.maintenance') this.apply(broadcast.payload.enabled);
  }

  private async read(): Promise<boolean | undefined> {
    try {
      const { enabled } = await this.store.get();
      if (this.failing) this.logger.log({ follower: this.options.follower }, 'maintenance state readable again');
      this.failing = false;
      this.apply(enabled);
      return enabled;
    } catch (error) {
      if (!this.failing)
        this.logger.warn(
          { follower: this.options.follower, reason: error instanceof Error ? error.message : String(error) },
          'cannot read the maintenance state; trying again',
        );
      this.failing = true;
      return undefined;
    }
  }
}
