/**
 * Domain errors of the capacity ledger. Edges (the controller's gRPC handler,
 * the broadcast consumer, the admin API) map them once; the ledger never knows
 * about HTTP or gRPC status codes.
 */
export abstract class CapacityError extends Error {
  protected constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * A worker's slot count or subscription list cannot be turned into a ledger.
 * `path` names the offending field the way the declarative setup does
 * (`slots`, `subscriptions[1].reservedPercent`), so the caller can prefix it.
 */
export class InvalidCapacityConfig extends CapacityError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** A job asked for a slot of a worker queue this worker does not (or no longer) subscribe to. */
export class QueueNotSubscribed extends CapacityError {
  constructor(readonly workerQueueId: string) {
    super(`the worker does not subscribe to the worker queue '${workerQueueId}'`);
  }
}

/**
 * A lease handed to `release` was not issued by this ledger. Releasing it would
 * free a slot of another worker (or one that never existed), so it is refused
 * instead of being ignored like a double release.
 */
export class ForeignSlotLease extends CapacityError {
  constructor() {
    super('the slot lease was not issued by this capacity ledger');
  }
}
