// The chaos driver's plan: which process is disrupted how, and when, drawn from a seed so a
// run that finds something can be replayed exactly (`--seed`).

/** mulberry32: a small, fast, well-mixed 32-bit generator; the same seed gives the same plan. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

export type DisruptionKind =
  /** kill -9, down a while, started again (same env, ports, data dir). */
  | 'kill9'
  /** SIGTERM (a worker drains), then started again. */
  | 'sigterm'
  /** SIGSTOP past the heartbeat timeout, then SIGCONT: a zombie that comes back. */
  | 'pause';

export interface Disruption {
  readonly kind: DisruptionKind;
  /** The process's name in the harness (`e2e-worker-a`, `executor`, `chaos-worker-c`...). */
  readonly target: string;
  /** The role it plays, for the report. */
  readonly role: 'worker' | 'controller' | 'executor' | 'scheduler';
  /** How long the driver waits before it, after the previous disruption is over (the first: after the first submission). */
  readonly afterMs: number;
  /** kill9/sigterm: time down before the restart; pause: time stopped. */
  readonly durationMs: number;
}

export interface ChaosTargets {
  /** Workers to kill -9 (restarted in place). */
  readonly killWorkers: readonly string[];
  readonly killControllers: readonly string[];
  readonly killExecutors: readonly string[];
  /** Scheduler processes to kill -9, once the scheduler role exists (none until then). */
  readonly killSchedulers: readonly string[];
  /** Workers to SIGTERM (they drain, then start again). */
  readonly termWorkers: readonly string[];
  /** Processes whose pid the driver holds, to SIGSTOP and SIGCONT. */
  readonly pause: readonly { readonly target: string; readonly role: Disruption['role'] }[];
}

export interface PlanOptions {
  readonly seed: number;
  /** One round disrupts each kind of target once, in a seeded order. */
  readonly rounds: number;
  /** When the first disruption starts (ms after the first submission). */
  readonly startMs: number;
  /** Seeded gap between the end of one disruption and the next: [min, max) ms. */
  readonly gapMs: readonly [number, number];
  /** Seeded downtime of a killed process: [min, max) ms. */
  readonly downtimeMs: readonly [number, number];
  /** How long a paused process stays stopped: past the heartbeat timeout. */
  readonly pauseMs: number;
}

function pick<T>(random: () => number, from: readonly T[]): T {
  return from[Math.floor(random() * from.length)];
}

function between(random: () => number, [min, max]: readonly [number, number]): number {
  return Math.round(min + random() * (max - min));
}

/** The seeded plan: `rounds` rounds, each with every kind of disruption once, shuffled, at seeded gaps. */
export function planDisruptions(targets: ChaosTargets, options: PlanOptions): Disruption[] {
  const random = seededRandom(options.seed);
  const plan: Disruption[] = [];
  let afterMs = options.startMs;
  for (let round = 0; round < options.rounds; round++) {
    type Pending = Omit<Disruption, 'afterMs' | 'durationMs'>;
    const kinds: Pending[] = [];
    if (targets.killWorkers.length > 0) kinds.push({ kind: 'kill9', target: pick(random, targets.killWorkers), role: 'worker' });
    if (targets.killControllers.length > 0)
      kinds.push({ kind: 'kill9', target: pick(random, targets.killControllers), role: 'controller' });
    if (targets.killExecutors.length > 0)
      kinds.push({ kind: 'kill9', target: pick(random, targets.killExecutors), role: 'executor' });
    if (targets.killSchedulers.length > 0)
      kinds.push({ kind: 'kill9', target: pick(random, targets.killSchedulers), role: 'scheduler' });
    if (targets.termWorkers.length > 0)
      kinds.push({ kind: 'sigterm', target: pick(random, targets.termWorkers), role: 'worker' });
    if (targets.pause.length > 0) kinds.push({ kind: 'pause', ...pick(random, targets.pause) });
    // Fisher-Yates with the seeded generator.
    for (let index = kinds.length - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1));
      [kinds[index], kinds[other]] = [kinds[other], kinds[index]];
    }
    for (const pending of kinds) {
      const durationMs = pending.kind === 'pause' ? options.pauseMs : between(random, options.downtimeMs);
      plan.push({ ...pending, afterMs, durationMs });
      afterMs = between(random, options.gapMs);
    }
  }
  return plan;
}

export function describeDisruption(disruption: Disruption): string {
  const what =
    disruption.kind === 'kill9'
      ? `kill -9, down ${disruption.durationMs} ms, restart`
      : disruption.kind === 'sigterm'
        ? `SIGTERM (drain), down ${disruption.durationMs} ms, restart`
        : `SIGSTOP ${disruption.durationMs} ms, SIGCONT`;
  return `after ${(disruption.afterMs / 1000).toFixed(1)} s: ${disruption.role} ${disruption.target}: ${what}`;
}
