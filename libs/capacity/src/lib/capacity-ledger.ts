import { CapacityLayout, CapacitySubscription, ResolvedSubscription, SubscriptionMode, resolveLayout } from './capacity-config';
import { ForeignSlotLease, QueueNotSubscribed } from './capacity-errors';

/**
 * What a lease occupies, fixed when it is granted:
 * - RESERVED: one of its own subscription's reserved slots;
 * - SHARED: a slot of the worker's shared pool;
 * - BORROWED: an idle reserved slot of another ELASTIC subscription (the lender).
 * Release gives the slot back to exactly that pool, so a borrowed slot returns
 * to its lender rather than to the borrower.
 */
export type SlotKind = 'RESERVED' | 'SHARED' | 'BORROWED';

/** A slot held from dispatch until the job's result is recorded. */
export interface SlotLease {
  /** Increasing per ledger; unique among the leases of one ledger. */
  readonly leaseId: number;
  readonly workerQueueId: string;
  readonly occupies: SlotKind;
  /** The subscription whose reserved slot a BORROWED lease occupies. */
  readonly lenderQueueId: string | undefined;
}

/** One subscription's standing. `used = reservedUsed + sharedUsed + borrowed`. */
export interface SubscriptionCapacity {
  readonly workerQueueId: string;
  readonly mode: SubscriptionMode;
  /**
   * False for a subscription removed by a reconfiguration whose running leases
   * (or whose slots lent out) have not all been released yet: it still counts.
   */
  readonly subscribed: boolean;
  readonly reservedPercent: number;
  /** Reserved slots r = floor(S * p / 100); 0 once unsubscribed. */
  readonly reserved: number;
  /** Running leases of this subscription, wherever they sit. */
  readonly used: number;
  /** Own leases on own reserved slots. */
  readonly reservedUsed: number;
  /** Own leases on shared slots. */
  readonly sharedUsed: number;
  /** Own leases on other subscriptions' reserved slots. */
  readonly borrowed: number;
  /** Other subscriptions' leases on this subscription's reserved slots. */
  readonly lent: number;
  /** Reserved slots nobody occupies: reserved - reservedUsed - lent, never below 0. */
  readonly idleReserved: number;
}

/**
 * A worker's capacity at one moment. It always adds up:
 * slots = reserved + shared; used + free = slots; used = sum of used;
 * sharedUsed = sum of sharedUsed; borrowed = lent = sum of borrowed = sum of lent.
 */
export interface CapacitySnapshot {
  readonly slots: number;
  readonly reserved: number;
  readonly shared: number;
  readonly used: number;
  readonly free: number;
  readonly sharedUsed: number;
  readonly borrowed: number;
  readonly lent: number;
  /** Current subscriptions in configuration order, then unsubscribed ones still holding slots. */
  readonly subscriptions: readonly SubscriptionCapacity[];
}

/** Mutable per-subscription counters; kept across reconfigurations by worker queue id. */
class Account {
  mode: SubscriptionMode = 'STRICT';
  elastic = false;
  reservedPercent = 0;
  reserved = 0;
  subscribed = true;
  reservedUsed = 0;
  sharedUsed = 0;
  borrowed = 0;
  lent = 0;

  constructor(readonly workerQueueId: string) {}

  apply(subscription: ResolvedSubscription): void {
    this.mode = subscription.mode;
    this.elastic = subscription.mode === 'ELASTIC';
    this.reservedPercent = subscription.reservedPercent;
    this.reserved = subscription.reserved;
    this.subscribed = true;
  }

  get used(): number {
    return this.reservedUsed + this.sharedUsed + this.borrowed;
  }

  /** Can go negative for a moment after a reconfiguration shrank the reservation. */
  get idleReserved(): number {
    return this.reserved - this.reservedUsed - this.lent;
  }
}

class Lease implements SlotLease {
  released = false;

  constructor(
    readonly ledger: CapacityLedger,
    readonly leaseId: number,
    readonly holder: Account,
    readonly occupies: SlotKind,
    readonly lender: Account | undefined,
  ) {}

  get workerQueueId(): string {
    return this.holder.workerQueueId;
  }

  get lenderQueueId(): string | undefined {
    return this.lender?.workerQueueId;
  }
}

// Integer codes keep the hot path free of string compares and allocations.
const NONE = 0;
const RESERVED = 1;
const SHARED = 2;
const BORROWED = 3;
const KIND_BY_CODE: readonly (SlotKind | undefined)[] = [undefined, 'RESERVED', 'SHARED', 'BORROWED'];

/**
 * The slot ledger of one worker: S slots split into per-subscription reserved
 * floors and a shared pool. Pure bookkeeping: no I/O, no clock; the controller
 * calls it from its dispatch loop, which is single-threaded per process, so the
 * check and the take in `acquire` are one step and two jobs can never both take
 * the last slot.
 */
export class CapacityLedger {
  readonly slots: number;
  private layout: CapacityLayout;
  /** Current subscriptions in configuration order. */
  private current: Account[] = [];
  /** Removed subscriptions that still hold or lend slots; dropped when they reach zero. */
  private retired: Account[] = [];
  private readonly accounts = new Map<string, Account>();
  private queueIds: readonly string[] = [];
  private reservedQueueIds: readonly string[] = [];
  private used = 0;
  private sharedOccupied = 0;
  private nextLeaseId = 1;
  private leaseIdSum = 0;
  /** Set by `choose` when it picks BORROWED; read right after, so no tuple is allocated. */
  private chosenLender: Account | undefined;

  constructor(slots: number, subscriptions: readonly CapacitySubscription[]) {
    this.layout = resolveLayout(slots, subscriptions);
    this.slots = slots;
    this.install(this.layout);
  }

  /** Subscribed worker queue ids, in configuration order. */
  get workerQueueIds(): readonly string[] {
    return this.queueIds;
  }

  /**
   * Subscribed worker queues with at least one reserved slot, in configuration
   * order: the only ones `floorShortfall` can be above 0 for, so a caller
   * looking for floors can skip the rest (and a ledger without any).
   */
  get workerQueueIdsWithFloor(): readonly string[] {
    return this.reservedQueueIds;
  }

  get freeSlots(): number {
    return this.slots - this.used;
  }

  /** Leases granted and not released yet. */
  get liveLeases(): number {
    return this.used;
  }

  /**
   * The sum of the ids of the live leases. With `liveLeases` it tells the set
   * of live leases from any later one, at no cost: ids only grow, so a later
   * set with as many leases has swapped some for newer, larger ids. Two equal
   * pairs read at two moments (with no reconfiguration between) mean the same
   * leases, so `snapshot` would answer the same.
   */
  get liveLeaseIdSum(): number {
    return this.leaseIdSum;
  }

  isSubscribed(workerQueueId: string): boolean {
    return this.accounts.get(workerQueueId)?.subscribed === true;
  }

  /** Reserved slots minus running jobs of the subscription, when positive; 0 if not subscribed. */
  floorShortfall(workerQueueId: string): number {
    const account = this.accounts.get(workerQueueId);
    if (account === undefined || !account.subscribed) return 0;
    const shortfall = account.reserved - account.used;
    return shortfall > 0 ? shortfall : 0;
  }

  /** Reserved slots of the subscription that nobody occupies; 0 if not subscribed. */
  idleReservedSlots(workerQueueId: string): number {
    const account = this.accounts.get(workerQueueId);
    if (account === undefined || !account.subscribed) return 0;
    const idle = account.idleReserved;
    return idle > 0 ? idle : 0;
  }

  /**
   * How many jobs of the subscription `acquire` would grant one after the
   * other from now on (own idle reserved slots, free shared slots, and for
   * ELASTIC the idle reserved slots of other ELASTIC subscriptions, capped by
   * the free slots); 0 if not subscribed. Lets a caller fetch only what the
   * worker can admit.
   */
  takeable(workerQueueId: string): number {
    const account = this.accounts.get(workerQueueId);
    if (account === undefined || !account.subscribed) return 0;
    const free = this.slots - this.used;
    if (free <= 0) return 0;
    let slots = Math.max(0, account.idleReserved) + Math.max(0, this.layout.shared - this.sharedOccupied);
    if (account.elastic) {
      for (const lender of this.current) if (lender !== account && lender.elastic) slots += Math.max(0, lender.idleReserved);
    }
    return Math.min(free, slots);
  }

  /** The kind of slot `acquire` would take now, without taking it; undefined if none (or not subscribed). */
  peek(workerQueueId: string): SlotKind | undefined {
    const account = this.accounts.get(workerQueueId);
    if (account === undefined || !account.subscribed) return undefined;
    return KIND_BY_CODE[this.choose(account)];
  }

  /**
   * Takes a slot for one job of the subscription, in order: a free reserved slot
   * of its own; a free shared slot; if ELASTIC, an idle reserved slot of another
   * ELASTIC subscription. Returns undefined when none is allowed.
   */
  acquire(workerQueueId: string): SlotLease | undefined {
    const account = this.accounts.get(workerQueueId);
    if (account === undefined || !account.subscribed) throw new QueueNotSubscribed(workerQueueId);
    const code = this.choose(account);
    switch (code) {
      case RESERVED:
        account.reservedUsed++;
        this.used++;
        return this.grant(account, 'RESERVED', undefined);
      case SHARED:
        account.sharedUsed++;
        this.sharedOccupied++;
        this.used++;
        return this.grant(account, 'SHARED', undefined);
      case BORROWED: {
        const lender = this.chosenLender as Account;
        this.chosenLender = undefined;
        account.borrowed++;
        lender.lent++;
        this.used++;
        return this.grant(account, 'BORROWED', lender);
      }
      default:
        return undefined;
    }
  }

  /**
   * Gives the lease's slot back to the pool it occupied. Returns false (and
   * changes nothing) when the lease was already released, so a result recorded
   * twice, or a result racing a disconnect, cannot free a slot twice.
   */
  release(lease: SlotLease): boolean {
    if (!(lease instanceof Lease) || lease.ledger !== this) throw new ForeignSlotLease();
    if (lease.released) return false;
    lease.released = true;
    const holder = lease.holder;
    switch (lease.occupies) {
      case 'RESERVED':
        holder.reservedUsed--;
        break;
      case 'SHARED':
        holder.sharedUsed--;
        this.sharedOccupied--;
        break;
      case 'BORROWED': {
        const lender = lease.lender as Account;
        holder.borrowed--;
        lender.lent--;
        if (!lender.subscribed) this.dropIfSettled(lender);
        break;
      }
    }
    this.used--;
    this.leaseIdSum -= lease.leaseId;
    if (!holder.subscribed) this.dropIfSettled(holder);
    return true;
  }

  /**
   * Applies a new subscription list live. Running leases are never cut: they
   * stay counted (under a removed subscription too) until released, so usage
   * may sit above a shrunken floor or shared pool for a while; new leases are
   * only granted while the worker has a free slot, so used never exceeds S.
   * Validation happens first: an invalid list changes nothing.
   */
  reconfigure(subscriptions: readonly CapacitySubscription[]): void {
    const layout = resolveLayout(this.slots, subscriptions);
    const previous = this.current;
    this.install(layout);
    for (const account of previous) {
      if (account.subscribed) continue;
      account.reserved = 0;
      account.reservedPercent = 0;
      if (account.used > 0 || account.lent > 0) this.retired.push(account);
      else this.accounts.delete(account.workerQueueId);
    }
    this.retired = this.retired.filter((account) => !account.subscribed);
  }

  /**
   * Each subscription's slot figures, current ones in configuration order then
   * unsubscribed ones still holding slots, without building a snapshot: for
   * callers that sum thousands of ledgers (metrics).
   */
  forEachSubscription(visit: (workerQueueId: string, subscribed: boolean, used: number, reserved: number) => void): void {
    for (const account of this.current) visit(account.workerQueueId, account.subscribed, account.used, account.reserved);
    for (const account of this.retired) visit(account.workerQueueId, account.subscribed, account.used, account.reserved);
  }

  snapshot(): CapacitySnapshot {
    const subscriptions = [...this.current, ...this.retired].map((account): SubscriptionCapacity => ({
      workerQueueId: account.workerQueueId,
      mode: account.mode,
      subscribed: account.subscribed,
      reservedPercent: account.reservedPercent,
      reserved: account.reserved,
      used: account.used,
      reservedUsed: account.reservedUsed,
      sharedUsed: account.sharedUsed,
      borrowed: account.borrowed,
      lent: account.lent,
      idleReserved: Math.max(0, account.idleReserved),
    }));
    let borrowed = 0;
    let lent = 0;
    for (const subscription of subscriptions) {
      borrowed += subscription.borrowed;
      lent += subscription.lent;
    }
    return {
      slots: this.slots,
      reserved: this.layout.reserved,
      shared: this.layout.shared,
      used: this.used,
      free: this.slots - this.used,
      sharedUsed: this.sharedOccupied,
      borrowed,
      lent,
      subscriptions,
    };
  }

  private grant(account: Account, occupies: SlotKind, lender: Account | undefined): Lease {
    const leaseId = this.nextLeaseId++;
    this.leaseIdSum += leaseId;
    return new Lease(this, leaseId, account, occupies, lender);
  }

  private install(layout: CapacityLayout): void {
    for (const account of this.current) account.subscribed = false;
    const current: Account[] = [];
    for (const subscription of layout.subscriptions) {
      let account = this.accounts.get(subscription.workerQueueId);
      if (account === undefined) {
        account = new Account(subscription.workerQueueId);
        this.accounts.set(subscription.workerQueueId, account);
      }
      account.apply(subscription);
      current.push(account);
    }
    this.layout = layout;
    this.current = current;
    this.queueIds = Object.freeze(current.map((account) => account.workerQueueId));
    this.reservedQueueIds = Object.freeze(
      current.filter((account) => account.reserved > 0).map((account) => account.workerQueueId),
    );
  }

  private choose(account: Account): number {
    // Checked first because after a reconfiguration a pool can show headroom
    // while running leases still overflow another pool onto the same slots.
    if (this.used >= this.slots) return NONE;
    if (account.idleReserved > 0) return RESERVED;
    if (this.sharedOccupied < this.layout.shared) return SHARED;
    if (!account.elastic) return NONE;
    // Borrow from the ELASTIC lender with the most idle reserved slots, so the
    // lender left with the thinnest margin is the last one dipped into.
    let lender: Account | undefined;
    let lenderIdle = 0;
    for (const candidate of this.current) {
      if (candidate === account || !candidate.elastic) continue;
      const idle = candidate.idleReserved;
      if (idle > lenderIdle) {
        lender = candidate;
        lenderIdle = idle;
      }
    }
    if (lender === undefined) return NONE;
    this.chosenLender = lender;
    return BORROWED;
  }

  private dropIfSettled(account: Account): void {
    if (account.used > 0 || account.lent > 0) return;
    this.accounts.delete(account.workerQueueId);
    this.retired = this.retired.filter((candidate) => candidate !== account);
  }
}
