import { LoadLinger, type LoadLingerOptions } from './load-linger';

interface QueuedCall<In, Out> {
  readonly input: In;
  resolve(output: Out): void;
  reject(error: unknown): void;
}

/**
 * Sends calls that arrive while an earlier round trip is in flight together,
 * as one batch: the first call of a quiet moment goes at once (no added
 * latency), and under load each round trip carries everything that queued
 * behind the previous one (at most `maxBatch`), so hundreds of concurrent
 * single-row writes cost a few statements instead of hundreds.
 *
 * With `lingerMs`, the first call of a quiet moment waits that long for others
 * instead (for writes nobody waits on, where fewer statements matter more than
 * a few milliseconds); given as a window by load, only under load (see LoadLinger).
 *
 * `run` answers each input at the same index. If a batch of several calls
 * throws, each of its calls is run again alone, so a call the database refuses
 * (a value it cannot store) fails only itself, never the calls that happened to
 * share its round trip; a failure every call would meet (the database is down)
 * reaches each of them. `run` must therefore be all-or-nothing per batch (one
 * statement, or one transaction), or write nothing twice (rows keyed with
 * `ON CONFLICT DO NOTHING`), which makes running a call again safe.
 */
export class BatchedCalls<In, Out> {
  private queued: QueuedCall<In, Out>[] = [];
  private flushing = false;
  private readonly windows: LoadLinger | undefined;

  /** `lingerMs` a number, or a window by load (see LoadLinger). */
  constructor(
    private readonly run: (inputs: readonly In[]) => Promise<readonly Out[]>,
    private readonly maxBatch = 200,
    private readonly lingerMs: number | LoadLingerOptions = 0,
  ) {
    this.windows = typeof lingerMs === 'number' ? undefined : new LoadLinger(lingerMs);
  }

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      const lingerMs = this.windows === undefined ? (this.lingerMs as number) : this.windows.arrived();
      this.queued.push({ input, resolve, reject });
      if (this.flushing) return;
      this.flushing = true;
      if (lingerMs > 0) setTimeout(() => void this.flush(), lingerMs);
      else void this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued.splice(0, this.maxBatch);
        try {
          const outputs = await this.run(batch.map((queued) => queued.input));
          batch.forEach((queued, index) => queued.resolve(outputs[index]));
        } catch (error) {
          if (batch.length === 1) batch[0].reject(error);
          else for (const queued of batch) await this.runAlone(queued);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async runAlone(queued: QueuedCall<In, Out>): Promise<void> {
    try {
      const [output] = await this.run([queued.input]);
      queued.resolve(output);
    } catch (error) {
      queued.reject(error);
    }
  }
}
