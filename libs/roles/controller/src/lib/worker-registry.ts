import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConnectedWorkerWrite } from '@lanner/model';
import { CONNECTED_WORKER_REFRESH_MS, type Repositories } from '@lanner/repository';
import { REPOSITORIES } from '@lanner/runtime';
import { CLOCK, type Clock } from './clock';
import { CONTROLLER_SETTINGS, ControllerIdentity, controllerTimings, type ControllerSettings } from './controller-settings';

/** Row writes in flight at once, so thousands of streams never take every database connection. */
const WRITE_CONCURRENCY = 8;

/** What a stream's row says, read when the registry writes it (the controller id is added here). */
export type RegistryRow = Omit<ConnectedWorkerWrite, 'controllerInstanceId'>;

class Entry {
  /**
   * A digest of the content last written, so an unchanged worker costs no
   * write. Not the JSON itself: with 20 subscriptions a row takes about 4.5 KB,
   * 9 MB of long-lived heap at 2,000 workers for the collector to mark.
   */
  written: string | undefined;
  /** The cheap fingerprint when the row was last built; the full row is only built when it changes. */
  seen: number | undefined;
  writtenAt = 0;
  /** When the full row was last built and compared (written or not), or its slow figures found unchanged. */
  checkedAt = 0;
  /** The slow figures when the row was last built. */
  slowSeen: string | undefined;
  forgotten = false;
  /** Writes and the final removal of one row run one after the other, never out of order. */
  chain: Promise<void> = Promise.resolve();

  constructor(
    readonly describe: () => RegistryRow,
    readonly fingerprint: () => number,
    readonly slowFigures: () => string,
  ) {}
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Publishes this controller's open worker streams in the live worker registry
 * (`connected_workers`), which the executor reads for availability and the API
 * for `/workers` and `/capacity`. A row is written when the stream is welcomed,
 * rewritten when what it says changes (draining, subscriptions, capacity) but
 * at most once a second per worker, refreshed for all streams at once every
 * CONNECTED_WORKER_REFRESH_MS, and removed when the stream ends.
 */
@Injectable()
export class WorkerRegistry {
  private readonly logger = new Logger(WorkerRegistry.name);
  private readonly entries = new Set<Entry>();
  /**
   * The newest stream of each worker id here. A worker that reconnects to this
   * controller keeps its id (it comes from its token), so its old stream's
   * removal must neither delete the new stream's row nor run after its write.
   */
  private readonly newest = new Map<string, Entry>();
  private scanTimer: NodeJS.Timeout | undefined;
  private touchTimer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private failing = false;
  /** Writes waiting for one of the WRITE_CONCURRENCY places (thousands of workers may connect at once). */
  private inFlight = 0;
  private readonly queued: (() => void)[] = [];
  /** A worker's row is rewritten at most this often, however often its capacity changes (LANNER_WORKER_REGISTRY_WRITE_INTERVAL_MS). */
  private readonly writeIntervalMs: number;
  /** How often the registry looks for rows whose content changed (LANNER_WORKER_REGISTRY_SCAN_MS). */
  private readonly scanMs: number;
  /**
   * How often figures outside the fingerprint (the jobs waiting on this
   * controller for the worker's queues) are compared, so they reach the row
   * without a write per fetch; the row is rebuilt only when they moved
   * (LANNER_WORKER_REGISTRY_FULL_CHECK_MS).
   */
  private readonly fullCheckMs: number;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly identity: ControllerIdentity,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONTROLLER_SETTINGS) settings: ControllerSettings,
  ) {
    const timings = controllerTimings(settings);
    this.writeIntervalMs = timings.registryWriteIntervalMs;
    this.scanMs = timings.registryScanMs;
    this.fullCheckMs = timings.registryFullCheckMs;
  }

  start(): void {
    if (this.scanTimer) return;
    this.scanTimer = setInterval(() => void this.scan(), this.scanMs);
    this.scanTimer.unref();
    this.touchTimer = setInterval(() => void this.touch(), CONNECTED_WORKER_REFRESH_MS);
    this.touchTimer.unref();
  }

  /**
   * A welcomed stream: its row is written now. `fingerprint` must change
   * whenever the row would, except for figures that move with every fetch
   * (it is read for every stream several times a second, so it must be far
   * cheaper than `describe`: a counter, nothing allocated); `slowFigures` must
   * change when those do, and is read every LANNER_WORKER_REGISTRY_FULL_CHECK_MS.
   */
  track(
    describe: () => RegistryRow,
    fingerprint: () => number,
    slowFigures: () => string,
  ): { forget: () => Promise<void>; written: Promise<void> } {
    const entry = new Entry(describe, fingerprint, slowFigures);
    const { workerId } = describe();
    const previous = this.newest.get(workerId);
    if (previous) entry.chain = previous.chain;
    this.newest.set(workerId, entry);
    this.entries.add(entry);
    const written = this.write(entry);
    return { forget: () => this.forget(entry), written };
  }

  /** Every row of this controller goes (shutdown). */
  async close(): Promise<void> {
    clearInterval(this.scanTimer);
    clearInterval(this.touchTimer);
    await this.scanning;
    await Promise.all([...this.entries].map((entry) => this.forget(entry)));
    try {
      await this.repositories.connectedWorkers.removeController(this.identity.id);
    } catch (error) {
      // Rows left behind stop counting once stale (CONNECTED_WORKER_STALE_MS).
      this.logger.warn({ error: message(error) }, 'could not remove this controller’s workers from the registry');
    }
  }

  private forget(entry: Entry): Promise<void> {
    if (entry.forgotten) return entry.chain;
    entry.forgotten = true;
    this.entries.delete(entry);
    const { workerId } = entry.describe();
    if (this.newest.get(workerId) !== entry) return entry.chain; // a newer stream of this worker owns the row
    entry.chain = entry.chain.then(async () => {
      // Stays the newest until removed, so a reconnect of the same worker writes only after the removal.
      if (this.newest.get(workerId) !== entry) return;
      try {
        await this.limited(() => this.repositories.connectedWorkers.remove(workerId, this.identity.id));
      } catch (error) {
        this.logger.warn(
          { workerId, error: message(error) },
          'could not remove a worker from the registry; it goes stale on its own',
        );
      }
      if (this.newest.get(workerId) === entry) this.newest.delete(workerId);
    });
    return entry.chain;
  }

  private write(entry: Entry): Promise<void> {
    entry.chain = entry.chain.then(async () => {
      if (entry.forgotten) return;
      const seen = entry.fingerprint();
      entry.slowSeen = entry.slowFigures();
      const row = entry.describe();
      const content = createHash('sha256').update(JSON.stringify(row)).digest('base64');
      entry.checkedAt = this.clock.nowMs();
      if (content === entry.written) {
        entry.seen = seen;
        return;
      }
      entry.writtenAt = this.clock.nowMs();
      try {
        await this.limited(() =>
          this.repositories.connectedWorkers.upsert({ ...row, controllerInstanceId: this.identity.id }, this.clock.now()),
        );
        entry.written = content;
        entry.seen = seen;
        this.recovered();
      } catch (error) {
        this.failed('could not write a worker to the registry; will retry', error);
      }
    });
    return entry.chain;
  }

  private async limited<T>(write: () => Promise<T>): Promise<T> {
    // A finishing write hands its place straight to the next waiting one, so at most WRITE_CONCURRENCY run.
    if (this.inFlight >= WRITE_CONCURRENCY) await new Promise<void>((resolve) => this.queued.push(resolve));
    else this.inFlight += 1;
    try {
      return await write();
    } finally {
      const next = this.queued.shift();
      if (next) next();
      else this.inFlight -= 1;
    }
  }

  /**
   * Rewrites rows that were not written within `writeIntervalMs` and whose
   * fingerprint moved, or that were not checked in full for `fullCheckMs`.
   */
  private scan(): Promise<void> {
    if (this.scanning) return this.scanning;
    const run = async () => {
      const now = this.clock.nowMs();
      // Full checks are spread over the scans: streams welcomed together would otherwise all be
      // rebuilt in the same scan every `fullCheckMs`, a pause of the event loop with thousands.
      let fullChecks = Math.ceil((this.entries.size * this.scanMs) / this.fullCheckMs);
      const due: Entry[] = [];
      for (const entry of this.entries) {
        if (now - entry.writtenAt < this.writeIntervalMs) continue;
        if (entry.written === undefined || entry.fingerprint() !== entry.seen) due.push(entry);
        else if (now - entry.checkedAt >= this.fullCheckMs && fullChecks > 0) {
          fullChecks -= 1;
          // An idle worker's figures rarely move: comparing them costs far less than rebuilding its row.
          if (entry.slowFigures() === entry.slowSeen) entry.checkedAt = now;
          else due.push(entry);
        }
      }
      await Promise.all(due.map((entry) => this.write(entry)));
    };
    this.scanning = run()
      .catch((error: unknown) => this.failed('registry scan failed', error))
      .finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  private async touch(): Promise<void> {
    if (this.entries.size === 0) return;
    try {
      await this.repositories.connectedWorkers.touchController(this.identity.id, this.clock.now());
      this.recovered();
    } catch (error) {
      this.failed('could not refresh this controller’s workers in the registry; will retry', error);
    }
  }

  /** One warning per outage, not one per worker per second. */
  private failed(what: string, error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn({ error: message(error) }, what);
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.log('worker registry writes work again');
  }
}
