import type { Clock } from '../lib/clock';

/** A clock that moves only when the spec says so. */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: number | string = '2026-01-01T00:00:00Z') {
    this.ms = typeof start === 'number' ? start : Date.parse(start);
  }

  now(): Date {
    return new Date(this.ms);
  }

  nowMs(): number {
    return this.ms;
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.ms += ms;
  }

  /** Sets the clock to an instant (epoch ms). */
  set(ms: number): void {
    this.ms = ms;
  }
}
