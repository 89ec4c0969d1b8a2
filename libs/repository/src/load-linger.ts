/**
 * How long the first write of a window waits for others, by load: `quietMs`
 * while calls arrive slower than `fromCallsPerSecond`, `atLoadMs` from that rate
 * on (where a longer window holds several calls, and its wait is small beside
 * the queueing every call meets anyway). The rate is a moving average over
 * about RATE_HORIZON_MS, updated at each call in constant time.
 */
export interface LoadLingerOptions {
  readonly quietMs: number;
  readonly atLoadMs: number;
  readonly fromCallsPerSecond: number;
}

/** The horizon of the rate that decides a window's length. */
const RATE_HORIZON_MS = 100;

export class LoadLinger {
  /** Calls per millisecond, as of `rateAt` (performance.now()). */
  private rate = 0;
  private rateAt = 0;

  constructor(private readonly options: LoadLingerOptions) {}

  /** Counts a call arriving now and answers how long a window opened by it waits. */
  arrived(now = performance.now()): number {
    this.rate = this.rate * Math.exp(-(now - this.rateAt) / RATE_HORIZON_MS) + 1 / RATE_HORIZON_MS;
    this.rateAt = now;
    return this.rate * 1000 >= this.options.fromCallsPerSecond ? this.options.atLoadMs : this.options.quietMs;
  }
}
