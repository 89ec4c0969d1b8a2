import { Injectable } from '@nestjs/common';

/** Resolves when the dependency answers, rejects otherwise. */
export type DependencyCheck = () => Promise<void>;

/**
 * The dependencies `/health/ready` asks, by name (`database`, `queue`,
 * `controllers`). Role modules register what they use; in standalone several
 * roles register the same shared adapter under the same name, which is asked once.
 */
@Injectable()
export class ReadinessChecks {
  private readonly checks = new Map<string, DependencyCheck>();

  register(dependency: string, check: DependencyCheck): void {
    this.checks.set(dependency, check);
  }

  entries(): [string, DependencyCheck][] {
    return [...this.checks.entries()];
  }
}

/**
 * A failure whose message is written for operators and safe to return from
 * `/health/ready`. Any other error is reduced to its code, because driver
 * messages can carry SQL, hosts with credentials or internal paths.
 */
export class DependencyDownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DependencyDownError';
  }
}
