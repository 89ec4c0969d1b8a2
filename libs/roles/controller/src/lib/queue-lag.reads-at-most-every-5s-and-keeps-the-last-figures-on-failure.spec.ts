import { CachedLag, type LagByQueue } from './queue-lag';

// The queue-lag gauge is computed at scrape time from a cached reading: these
// scenarios are what an operator scraping /metrics would notice.

/** A CachedLag on a clock the spec moves and a read the spec scripts. */
class Harness {
  clock = 1_000_000;
  readCount = 0;
  recoveries = 0;
  readonly failures: unknown[] = [];
  /** What the next read answers. */
  next: () => Promise<LagByQueue> = async () => new Map();
  readonly lag: CachedLag<LagByQueue>;

  constructor(waitMs = 1_000) {
    this.lag = new CachedLag(
      () => {
        this.readCount += 1;
        return this.next();
      },
      new Map(),
      {
        maxAgeMs: 5_000,
        waitMs,
        now: () => this.clock,
        onFailure: (error) => this.failures.push(error),
        onRecovery: () => (this.recoveries += 1),
      },
    );
  }
}

const harness = (options: { waitMs?: number } = {}) => new Harness(options.waitMs);

const figures = (entries: Array<[string, number]>): LagByQueue => new Map(entries);

describe('CachedLag: the lag behind the worker-queue gauge', () => {
  it('reads once per 5 s however often it is scraped, and reads again after that', async () => {
    const h = harness();
    h.next = async () => figures([['gpu', 7]]);
    expect(await h.lag.current()).toEqual(figures([['gpu', 7]]));

    h.next = async () => figures([['gpu', 3]]);
    h.clock += 4_999;
    expect(await Promise.all([h.lag.current(), h.lag.current()])).toEqual([figures([['gpu', 7]]), figures([['gpu', 7]])]);
    expect(h.readCount).toBe(1);

    h.clock += 1;
    expect(await h.lag.current()).toEqual(figures([['gpu', 3]]));
    expect(h.readCount).toBe(2);
  });

  it('shares one read between scrapes that arrive while it runs', async () => {
    const h = harness();
    let answer!: (lag: LagByQueue) => void;
    h.next = () => new Promise((resolve) => (answer = resolve));
    const first = h.lag.current();
    const second = h.lag.current();
    answer(figures([['etl', 2]]));
    expect(await Promise.all([first, second])).toEqual([figures([['etl', 2]]), figures([['etl', 2]])]);
    expect(h.readCount).toBe(1);
  });

  it('keeps the last figures when a read fails, warns once per outage, and says when reads work again', async () => {
    const h = harness();
    h.next = async () => figures([['gpu', 4]]);
    await h.lag.current();

    for (let scrape = 0; scrape < 3; scrape++) {
      h.clock += 5_000;
      h.next = async () => {
        throw new Error('Kafka did not answer');
      };
      await expect(h.lag.current()).resolves.toEqual(figures([['gpu', 4]]));
    }
    expect(h.readCount).toBe(4);
    expect(h.failures).toEqual([new Error('Kafka did not answer')]);

    h.clock += 5_000;
    h.next = async () => figures([['gpu', 0]]);
    expect(await h.lag.current()).toEqual(figures([['gpu', 0]]));
    expect(h.recoveries).toBe(1);

    h.clock += 5_000;
    h.next = async () => {
      throw new Error('Kafka did not answer');
    };
    await h.lag.current();
    expect(h.failures).toHaveLength(2);
  });

  it('answers with the last figures when a read is slow, and takes its figures once it ends', async () => {
    const h = harness({ waitMs: 20 });
    h.next = async () => figures([['gpu', 1]]);
    await h.lag.current();

    h.clock += 5_000;
    let answer!: (lag: LagByQueue) => void;
    h.next = () => new Promise((resolve) => (answer = resolve));
    expect(await h.lag.current()).toEqual(figures([['gpu', 1]]));

    answer(figures([['gpu', 9]]));
    await new Promise((resolve) => setImmediate(resolve));
    // Within 5 s of the slow read's start: its figures, no new read.
    expect(await h.lag.current()).toEqual(figures([['gpu', 9]]));
    expect(h.readCount).toBe(2);
  });

  it('shows nothing before the first read succeeds, rather than a made-up zero', async () => {
    const h = harness();
    h.next = async () => {
      throw new Error('connection refused');
    };
    expect(await h.lag.current()).toEqual(new Map());
  });
});
