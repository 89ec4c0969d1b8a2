import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ExecutionFilesOwner, Repositories, TenantRepositories } from '@lanner/repository';
import { errorSummary, REPOSITORIES } from '@lanner/runtime';
import { executionPrefix, type InternalStorage } from '@lanner/storage';
import { API_ROLE_OPTIONS, type ApiRoleOptions } from '../api-role.options';
import { InvalidRequest, WrongState } from '../http/api-errors';
import { hasEnded } from './execution-view';
import { INTERNAL_STORAGE } from './executions.service';

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_SWEEP_MS = 60 * 60 * 1000;
/** Executions purged per batch of a sweep; a sweep goes on batch after batch until none is left. */
const BATCH = 100;

/** Deletes an execution's files and records that they are gone; the URIs deleted. */
async function purgeFilesOf(
  storage: InternalStorage,
  owner: ExecutionFilesOwner,
  markPurged: (at: Date) => Promise<void>,
): Promise<string[]> {
  const prefix = executionPrefix({ namespace: owner.namespace, flowId: owner.flowId, executionId: owner.id });
  const files = await storage.list(owner.tenantId, prefix);
  await storage.deletePrefix(owner.tenantId, prefix);
  await markPurged(new Date());
  return files.map((file) => file.uri);
}

/**
 * An execution's files in internal storage (its FILE inputs, its tasks' output files and
 * stored outputs), purged on request through the tenant's own data. Purging twice is harmless.
 */
@Injectable()
export class ExecutionFilesService {
  constructor(@Inject(INTERNAL_STORAGE) private readonly storage: InternalStorage | null) {}

  /** Purges the files of one ended execution of the tenant; the URIs deleted. */
  async purge(tenant: TenantRepositories, executionId: string): Promise<string[]> {
    const execution = await tenant.executions.get(executionId);
    if (!hasEnded(execution)) {
      throw new WrongState(`Execution '${executionId}' has not ended (${execution.state}): its tasks may still use its files`);
    }
    if (!this.storage) {
      throw new InvalidRequest('This server has no internal storage', [
        { path: 'id', message: 'purging files needs internal storage (LANNER_STORAGE_TYPE)' },
      ]);
    }
    const owner = { tenantId: tenant.tenantId, namespace: execution.namespace, flowId: execution.flowId, id: execution.id };
    return purgeFilesOf(this.storage, owner, (at) => tenant.executions.markFilesPurged(execution.id, at));
  }
}

/**
 * The retention: the files of every tenant's executions that ended
 * `LANNER_STORAGE_RETENTION_DAYS` ago are purged, once an hour. Two api replicas
 * sweeping at once only repeat each other's deletes.
 */
@Injectable()
export class StorageRetention implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(StorageRetention.name);
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INTERNAL_STORAGE) private readonly storage: InternalStorage | null,
    @Inject(API_ROLE_OPTIONS) private readonly options: ApiRoleOptions,
  ) {}

  onModuleInit(): void {
    const days = this.options.storageRetentionDays;
    if (days === undefined || !this.storage) return;
    const every = this.options.storageRetentionSweepMs ?? DEFAULT_SWEEP_MS;
    const run = () => {
      this.sweep(new Date()).catch((error: unknown) => {
        this.logger.warn({ ...errorSummary(error) }, 'storage retention sweep failed; it runs again at the next period');
      });
    };
    this.timer = setInterval(run, every);
    this.timer.unref();
    setImmediate(run);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
  }

  /**
   * Purges the files of every execution that ended more than the retention ago (none
   * without one); how many executions it purged. Sweeps run one after another in a process.
   */
  sweep(now: Date): Promise<number> {
    const days = this.options.storageRetentionDays;
    const storage = this.storage;
    if (days === undefined || !storage) return Promise.resolve(0);
    // After the sweep in progress, if any: a sweep asked for now sees what exists now.
    const previous = this.sweeping?.catch(() => 0) ?? Promise.resolve(0);
    const next = previous.then(() => this.sweepBefore(storage, new Date(now.getTime() - days * DAY_MS)));
    this.sweeping = next;
    return next.finally(() => {
      if (this.sweeping === next) this.sweeping = undefined;
    });
  }

  private async sweepBefore(storage: InternalStorage, cutoff: Date): Promise<number> {
    let purged = 0;
    for (;;) {
      const batch = await this.repositories.executions.endedWithFilesBefore(cutoff, BATCH);
      for (const owner of batch) {
        await purgeFilesOf(storage, owner, (at) => this.repositories.executions.markFilesPurged(owner.tenantId, owner.id, at));
        purged += 1;
      }
      if (batch.length < BATCH) break;
    }
    if (purged > 0) this.logger.log({ purged, endedBefore: cutoff.toISOString() }, 'storage retention purged execution files');
    return purged;
  }
}
