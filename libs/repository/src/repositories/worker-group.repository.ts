import {
  DEFAULT_WORKER_GROUP_ID,
  DEFAULT_WORKER_QUEUE_ID,
  DEFAULT_WORKER_RESTART_STRATEGY,
  type PutOutcome,
  type SubscriptionRecord,
  type SubscriptionWrite,
  type WorkerGroupRecord,
  type WorkerGroupWrite,
  type WorkerRestartStrategy,
  SYSTEM_WORKER_QUEUE_ID,
} from '@lanner/model';
import { AlreadyExists, InvalidRecord, NotFound, ReservedEntity } from '../errors';
import type { Subscription, WorkerGroup } from '../generated/prisma/client';
import { type Db, type DbOrTx, FOREIGN_KEY_VIOLATION, prismaErrorCode, UNIQUE_VIOLATION } from '../prisma';

/** A SHA-256 digest in lowercase hex: the only form of a registration token stored. */
const TOKEN_HASH = /^[0-9a-f]{64}$/;

const WITH_SUBSCRIPTIONS = { subscriptions: { orderBy: { workerQueueId: 'asc' as const } } };

/** Worker groups and their subscriptions (instance-wide). */
export class WorkerGroupRepository {
  constructor(private readonly db: Db) {}

  /**
   * Makes sure the reserved topology exists: the `default` and `system`
   * queues, and the `default` group subscribed to the `default` queue.
   * Idempotent; run at every start of `api` and `standalone`.
   */
  async seedReserved(): Promise<void> {
    // Writes only what is missing, so a restart leaves every row (and its `updatedAt`) as it was.
    await this.db.$transaction(async (tx) => {
      for (const [id, description] of [
        [DEFAULT_WORKER_QUEUE_ID, 'Untagged work'],
        [SYSTEM_WORKER_QUEUE_ID, 'Platform-internal tasks, served by the in-process system worker'],
      ] as const) {
        const queue = await tx.workerQueue.findUnique({ where: { id }, select: { reserved: true } });
        if (queue === null)
          await tx.workerQueue.create({ data: { id, tags: [], allowedTenants: [], description, reserved: true } });
        else if (!queue.reserved) await tx.workerQueue.update({ where: { id }, data: { reserved: true } });
      }
      const group = await tx.workerGroup.findUnique({ where: { id: DEFAULT_WORKER_GROUP_ID }, select: { reserved: true } });
      if (group === null) {
        await tx.workerGroup.create({
          data: {
            id: DEFAULT_WORKER_GROUP_ID,
            name: 'Default',
            description: 'Workers that serve the default queue',
            reserved: true,
          },
        });
      } else if (!group.reserved) {
        await tx.workerGroup.update({ where: { id: DEFAULT_WORKER_GROUP_ID }, data: { reserved: true } });
      }
      const subscription = { workerGroupId: DEFAULT_WORKER_GROUP_ID, workerQueueId: DEFAULT_WORKER_QUEUE_ID };
      if (
        (await tx.subscription.findUnique({ where: { workerGroupId_workerQueueId: subscription }, select: { id: true } })) ===
        null
      ) {
        await tx.subscription.create({ data: subscription });
      }
    });
  }

  async list(): Promise<WorkerGroupRecord[]> {
    const rows = await this.db.workerGroup.findMany({ orderBy: { id: 'asc' }, include: WITH_SUBSCRIPTIONS });
    return rows.map(toWorkerGroupRecord);
  }

  async get(id: string): Promise<WorkerGroupRecord> {
    const row = await this.db.workerGroup.findUnique({ where: { id }, include: WITH_SUBSCRIPTIONS });
    if (row === null) throw new NotFound('worker group', id);
    return toWorkerGroupRecord(row);
  }

  /** The groups subscribed to a queue, e.g. to explain why a job waits. */
  async listSubscribersOf(workerQueueId: string): Promise<SubscriptionRecord[]> {
    const rows = await this.db.subscription.findMany({ where: { workerQueueId }, orderBy: { workerGroupId: 'asc' } });
    return rows.map(toSubscriptionRecord);
  }

  /**
   * Idempotent create-or-replace (PUT). When `subscriptions` is given it
   * replaces the group's set; the `default` group keeps its `default`
   * subscription whatever is given. NotFound for an unknown queue.
   * The same PUT again writes nothing (`changed: false`, `updatedAt` kept);
   * `subscriptionsChanged` tells whether the group's subscription set differs
   * from before (controllers must then be told).
   */
  async put(
    group: WorkerGroupWrite,
  ): Promise<PutOutcome<WorkerGroupRecord> & { readonly changed: boolean; readonly subscriptionsChanged: boolean }> {
    return this.db.$transaction(async (tx) => {
      const existing = await tx.workerGroup.findUnique({ where: { id: group.id }, include: WITH_SUBSCRIPTIONS });
      const fields = {
        name: group.name,
        description: group.description ?? null,
        ...(group.restartStrategy === undefined ? {} : { restartStrategy: group.restartStrategy }),
      };
      const wanted = group.subscriptions === undefined ? undefined : wantedSubscriptions(group.id, group.subscriptions);
      const sameFields =
        existing !== null &&
        existing.name === fields.name &&
        existing.description === fields.description &&
        (group.restartStrategy === undefined || existing.restartStrategy === group.restartStrategy);
      const sameSubscriptions =
        existing !== null && (wanted === undefined || sameSubscriptionSet(existing.subscriptions, wanted));
      if (existing !== null && sameFields && sameSubscriptions) {
        return { record: toWorkerGroupRecord(existing), created: false, changed: false, subscriptionsChanged: false };
      }
      if (!sameFields)
        await tx.workerGroup.upsert({ where: { id: group.id }, create: { id: group.id, ...fields }, update: fields });
      if (wanted !== undefined && !sameSubscriptions) {
        await tx.subscription.deleteMany({ where: { workerGroupId: group.id, workerQueueId: { notIn: [...wanted.keys()] } } });
        for (const subscription of wanted.values()) await upsertSubscription(tx, group.id, subscription);
      }
      const row = await tx.workerGroup.findUniqueOrThrow({ where: { id: group.id }, include: WITH_SUBSCRIPTIONS });
      return {
        record: toWorkerGroupRecord(row),
        created: existing === null,
        changed: true,
        subscriptionsChanged: !sameSubscriptions && row.subscriptions.length + (existing?.subscriptions.length ?? 0) > 0,
      };
    });
  }

  /**
   * The restart strategy of the group of the worker `workerId`: the group it
   * registered in, or `default` for an anonymous worker (no row of its own).
   * For the lost jobs reported without the worker's stream at hand.
   */
  async restartStrategyOfWorker(workerId: string): Promise<WorkerRestartStrategy> {
    const worker = await this.db.worker.findUnique({
      where: { id: workerId },
      select: { workerGroup: { select: { restartStrategy: true } } },
    });
    if (worker !== null) return worker.workerGroup.restartStrategy;
    const group = await this.db.workerGroup.findUnique({
      where: { id: DEFAULT_WORKER_GROUP_ID },
      select: { restartStrategy: true },
    });
    return group?.restartStrategy ?? DEFAULT_WORKER_RESTART_STRATEGY;
  }

  /**
   * Creates a new group with its subscriptions and registration tokens (given
   * as SHA-256 hashes) in one transaction: all of it or nothing. For the
   * declarative setup, which never touches an existing group: AlreadyExists
   * when the id or a token hash is taken, NotFound for an unknown queue.
   */
  async createWithTokens(
    group: WorkerGroupWrite,
    tokens: readonly { name: string; tokenHash: string }[],
  ): Promise<WorkerGroupRecord> {
    for (const token of tokens) {
      // Refusing anything else keeps a raw token from being stored by mistake.
      if (!TOKEN_HASH.test(token.tokenHash))
        throw new InvalidRecord(
          'a registration token is stored as its SHA-256 hash (64 lowercase hex characters), never as its value',
        );
    }
    try {
      return await this.db.$transaction(async (tx) => {
        const existing = await tx.workerGroup.findUnique({ where: { id: group.id }, select: { id: true } });
        if (existing !== null) throw new AlreadyExists('worker group', group.id);
        await tx.workerGroup.create({
          data: {
            id: group.id,
            name: group.name,
            description: group.description ?? null,
            ...(group.restartStrategy === undefined ? {} : { restartStrategy: group.restartStrategy }),
          },
        });
        for (const subscription of wantedSubscriptions(group.id, group.subscriptions ?? []).values())
          await upsertSubscription(tx, group.id, subscription);
        for (const token of tokens)
          await tx.registrationToken.create({ data: { workerGroupId: group.id, name: token.name, tokenHash: token.tokenHash } });
        return toWorkerGroupRecord(
          await tx.workerGroup.findUniqueOrThrow({ where: { id: group.id }, include: WITH_SUBSCRIPTIONS }),
        );
      });
    } catch (error) {
      if (prismaErrorCode(error) === UNIQUE_VIOLATION) throw new AlreadyExists('registration token', '(a declared token value)');
      throw error;
    }
  }

  /** ReservedEntity for `default`; its subscriptions and tokens go with it. */
  async delete(id: string): Promise<void> {
    if (id === DEFAULT_WORKER_GROUP_ID) throw new ReservedEntity('worker group', id);
    const { count } = await this.db.workerGroup.deleteMany({ where: { id } });
    if (count === 0) throw new NotFound('worker group', id);
  }

  async putSubscription(workerGroupId: string, subscription: SubscriptionWrite): Promise<SubscriptionRecord> {
    return this.db.$transaction(async (tx) => {
      const group = await tx.workerGroup.findUnique({ where: { id: workerGroupId }, select: { id: true } });
      if (group === null) throw new NotFound('worker group', workerGroupId);
      return upsertSubscription(tx, workerGroupId, subscription);
    });
  }

  /** Removes the subscription only; the queue stays. The `default` group's `default` subscription is reserved. */
  async removeSubscription(workerGroupId: string, workerQueueId: string): Promise<void> {
    if (workerGroupId === DEFAULT_WORKER_GROUP_ID && workerQueueId === DEFAULT_WORKER_QUEUE_ID) {
      throw new ReservedEntity('subscription', `${workerGroupId}/${workerQueueId}`);
    }
    const { count } = await this.db.subscription.deleteMany({ where: { workerGroupId, workerQueueId } });
    if (count === 0) throw new NotFound('subscription', `${workerGroupId}/${workerQueueId}`);
  }
}

/** The subscriptions a write asks for, by queue id; the `default` group always keeps its `default` subscription. */
function wantedSubscriptions(groupId: string, subscriptions: readonly SubscriptionWrite[]): Map<string, SubscriptionWrite> {
  const wanted = new Map(subscriptions.map((s) => [s.workerQueueId, s]));
  if (groupId === DEFAULT_WORKER_GROUP_ID && !wanted.has(DEFAULT_WORKER_QUEUE_ID)) {
    wanted.set(DEFAULT_WORKER_QUEUE_ID, { workerQueueId: DEFAULT_WORKER_QUEUE_ID });
  }
  return wanted;
}

function sameSubscriptionSet(stored: readonly Subscription[], wanted: ReadonlyMap<string, SubscriptionWrite>): boolean {
  if (stored.length !== wanted.size) return false;
  return stored.every((row) => {
    const other = wanted.get(row.workerQueueId);
    return (
      other !== undefined && row.reservedPercent === (other.reservedPercent ?? null) && row.mode === (other.mode ?? 'STRICT')
    );
  });
}

async function upsertSubscription(
  tx: DbOrTx,
  workerGroupId: string,
  subscription: SubscriptionWrite,
): Promise<SubscriptionRecord> {
  const fields = { reservedPercent: subscription.reservedPercent ?? null, mode: subscription.mode ?? 'STRICT' };
  try {
    const row = await tx.subscription.upsert({
      where: { workerGroupId_workerQueueId: { workerGroupId, workerQueueId: subscription.workerQueueId } },
      create: { workerGroupId, workerQueueId: subscription.workerQueueId, ...fields },
      update: fields,
    });
    return toSubscriptionRecord(row);
  } catch (error) {
    if (prismaErrorCode(error) === FOREIGN_KEY_VIOLATION) throw new NotFound('worker queue', subscription.workerQueueId);
    throw error;
  }
}

function toSubscriptionRecord(row: Subscription): SubscriptionRecord {
  return {
    workerGroupId: row.workerGroupId,
    workerQueueId: row.workerQueueId,
    reservedPercent: row.reservedPercent,
    mode: row.mode,
  };
}

function toWorkerGroupRecord(row: WorkerGroup & { subscriptions: Subscription[] }): WorkerGroupRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    restartStrategy: row.restartStrategy,
    reserved: row.reserved,
    subscriptions: row.subscriptions.map(toSubscriptionRecord),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
