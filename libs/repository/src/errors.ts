// Domain errors thrown by the repositories. Each edge (HTTP filter, gRPC status
// mapper, queue consumer) maps them once; none of them carries SQL, a stack
// trace from the database or a secret in its message.

export abstract class RepositoryError extends Error {
  protected constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Something asked for by id does not exist (for this tenant). */
export class NotFound extends RepositoryError {
  constructor(
    readonly entity: string,
    readonly id: string,
  ) {
    super(`${entity} '${id}' does not exist`);
  }
}

export class FlowNotFound extends NotFound {
  constructor(
    readonly namespace: string,
    readonly flowId: string,
    readonly revision?: number,
  ) {
    super('flow', revision === undefined ? `${namespace}.${flowId}` : `${namespace}.${flowId} revision ${revision}`);
  }
}

export class TriggerNotFound extends NotFound {
  constructor(namespace: string, flowId: string, triggerId: string) {
    super('trigger', `${namespace}.${flowId}.${triggerId}`);
  }
}

export class ExecutionNotFound extends NotFound {
  constructor(readonly executionId: string) {
    super('execution', executionId);
  }
}

/** A create met an entity with the same identity. */
export class AlreadyExists extends RepositoryError {
  constructor(
    readonly entity: string,
    readonly id: string,
  ) {
    super(`${entity} '${id}' already exists`);
  }
}

/** The row changed since it was read (optimistic concurrency). Re-read and retry. */
export class ConcurrentModification extends RepositoryError {
  constructor(
    readonly entity: string,
    readonly id: string,
    readonly expectedVersion: number,
  ) {
    super(`${entity} '${id}' was modified concurrently (expected version ${expectedVersion})`);
  }
}

/** The reserved worker queues (`default`, `system`) and group (`default`) cannot be changed this way. */
export class ReservedEntity extends RepositoryError {
  constructor(
    readonly entity: string,
    readonly id: string,
  ) {
    super(`${entity} '${id}' is reserved and cannot be changed`);
  }
}

/** The entity is still referenced (e.g. a worker queue a group subscribes to). */
export class InUse extends RepositoryError {
  constructor(
    readonly entity: string,
    readonly id: string,
    readonly usedBy: string,
  ) {
    super(`${entity} '${id}' is still used by ${usedBy}`);
  }
}

/** A value the repository refuses to store (e.g. something that is not a token hash). */
export class InvalidRecord extends RepositoryError {
  constructor(message: string) {
    super(message);
  }
}

/** DATABASE_URL is malformed, or the database cannot be reached or refuses us. */
export class DatabaseUnavailable extends RepositoryError {
  constructor(message: string) {
    super(message);
  }
}

/** A migration could not be created or applied; the message names the migration. */
export class MigrationFailed extends RepositoryError {
  constructor(message: string) {
    super(message);
  }
}
