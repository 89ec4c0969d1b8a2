import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { describeFailure } from '../health/describe-failure';
import { ReadinessChecks } from '../health/readiness-checks';
import { openReconnecting } from './reconnecting-adapter';

/** What the runtime needs from any I/O adapter it manages (repository, queue). */
export interface ManagedAdapter {
  ping(): Promise<void>;
  close(): Promise<void>;
}

interface PoolEntry {
  readonly adapter: Promise<ManagedAdapter>;
  holders: number;
}

/**
 * One instance per adapter identity (`database:<url>`, `queue:in-process`) in
 * the process. A distributed role holds each of its adapters alone; in
 * standalone the six role modules share them, and an adapter is closed when the
 * last role module holding it shuts down.
 */
@Injectable()
export class AdapterPool {
  private readonly entries = new Map<string, PoolEntry>();

  acquire<T extends ManagedAdapter>(key: string, open: () => Promise<T>): Promise<T> {
    let entry = this.entries.get(key);
    if (!entry) {
      const adapter = open();
      entry = { adapter, holders: 0 };
      this.entries.set(key, entry);
      // A failed open is not cached, so the next holder tries again.
      adapter.catch(() => this.entries.delete(key));
    }
    entry.holders += 1;
    return entry.adapter as Promise<T>;
  }

  async release(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.holders -= 1;
    if (entry.holders > 0) return;
    this.entries.delete(key);
    await (await entry.adapter).close();
  }
}

export interface AdapterLease<T extends ManagedAdapter> {
  /** Identity in the pool; secrets in it (a database URL) never leave the process. */
  readonly key: string;
  /** Name under `/health/ready`. */
  readonly dependency: string;
  /** Lower closes first: queue consumers stop before the repository they write to. */
  readonly closeOrder: number;
  readonly open: () => Promise<T>;
  /**
   * True: when the dependency is down at start the role still starts, reports it
   * down on `/health/ready` and keeps trying (see openReconnecting). False: the
   * process fails to start (standalone, whose database it has just started itself).
   */
  readonly toleratesDownAtStart: boolean;
}

/**
 * The adapters one role module holds. Listed in each role module's providers,
 * so every role module gets its own: it registers their readiness checks and
 * releases them when the application shuts down (after the HTTP server closed).
 */
@Injectable()
export class AdapterLeases implements OnApplicationShutdown {
  private readonly logger = new Logger(AdapterLeases.name);
  private readonly held: AdapterLease<ManagedAdapter>[] = [];

  constructor(
    private readonly pool: AdapterPool,
    private readonly readiness: ReadinessChecks,
  ) {}

  async hold<T extends ManagedAdapter>(lease: AdapterLease<T>): Promise<T> {
    const open = lease.toleratesDownAtStart
      ? () =>
          openReconnecting({
            dependency: lease.dependency,
            open: lease.open,
            onOpenFailed: (error) =>
              this.logger.warn(
                {
                  dependency: lease.dependency,
                  reason: describeFailure(error),
                  detail: error instanceof Error ? error.message : String(error),
                },
                'dependency unavailable, will retry',
              ),
          })
      : lease.open;
    const adapter = await this.pool.acquire(lease.key, open);
    this.held.push(lease);
    this.readiness.register(lease.dependency, () => adapter.ping());
    return adapter;
  }

  async onApplicationShutdown(): Promise<void> {
    const closing = [...this.held].sort((a, b) => a.closeOrder - b.closeOrder);
    this.held.length = 0;
    for (const lease of closing) {
      try {
        await this.pool.release(lease.key);
      } catch (error) {
        // Keep closing the others: a stuck queue must not leave the database pool open.
        this.logger.error({ dependency: lease.dependency, err: error }, 'adapter did not close cleanly');
      }
    }
  }
}
