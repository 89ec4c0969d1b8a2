/**
 * The controller's one source of the current time. Every part of the role reads
 * the time through this port (injected as CLOCK), so its rules can be checked on
 * a clock a spec moves by hand (`testing/manual-clock.ts`); `systemClock`
 * (`system-clock.ts`) is the only code of the role that reads the host's clock.
 */
export interface Clock {
  /** The current time as a Date. */
  now(): Date;
  /** The current time in epoch milliseconds. */
  nowMs(): number;
}

/** The Nest token of the controller's Clock (provided once, by ControllerRoleModule). */
export const CLOCK = Symbol('lanner.controller-clock');
