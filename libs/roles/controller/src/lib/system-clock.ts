import type { Clock } from './clock';

/** The host's clock: the only place in the controller that reads it (a spec of this lib checks that). */
export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
};
