import { LoadLinger } from '../load-linger';

interface Waiting<In> {
  readonly input: In;
  resolve(recorded: boolean): void;
  reject(error: unknown): void;
}

/** What one statement does: the rows it inserts and the rows it removes, each answered at its index. */
export type RunJobWrites<Insert, Removal> = (
  inserts: readonly Insert[],
  removals: readonly Removal[],
) => Promise<{ readonly inserted: readonly boolean[]; readonly removed: readonly boolean[] }>;

export interface JobWriteWindows {
  /** How long an insert waits for others (its job leaves for its worker only after it: keep it small). */
  readonly insertLingerMs: number;
  /**
   * How long an insert waits for others while inserts arrive at `loadInsertsPerSecond` or more
   * (at that rate a window this long holds several; below it, the short window keeps a job's wait short).
   */
  readonly insertLingerAtLoadMs: number;
  /** The rate of inserts (a moving average, see LoadLinger) from which `insertLingerAtLoadMs` applies. */
  readonly loadInsertsPerSecond: number;
  /** How long a removal waits for others (nobody waits on it). */
  readonly removalLingerMs: number;
  /** At most this many inserts, and this many removals, in one statement; a full window goes at once. */
  readonly maxRows: number;
}

/**
 * The two writes a controller makes for every job, in windows that share their
 * statement: the insert of a dispatched job's row, which waits up to
 * `insertLingerMs` for others (`insertLingerAtLoadMs` while jobs are dispatched
 * at `loadInsertsPerSecond` or more), and the removal of a finished job's row, which
 * waits up to `removalLingerMs`. Whichever window closes first takes everything
 * the other holds, so at load the removals of the jobs that just finished go in
 * the statement that inserts the jobs taking their slots (one statement instead
 * of two, and neither waits longer than its own window).
 *
 * Writes that arrive while a statement is in flight wait for it, then for what
 * is left of their own window. `run` must be one statement (all or nothing): if
 * one of several writes fails it, each write runs again alone, so a row the
 * database refuses fails only its own caller.
 */
export class WindowedJobWrites<Insert, Removal> {
  private inserts: Waiting<Insert>[] = [];
  private removals: Waiting<Removal>[] = [];
  /** When the first write now waiting was queued, by kind (performance.now()). */
  private insertsSince = 0;
  private removalsSince = 0;
  /** The window of the inserts now waiting (decided when the first of them arrived). */
  private insertLinger = 0;
  private readonly insertWindows: LoadLinger;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private inFlight = false;

  constructor(
    private readonly run: RunJobWrites<Insert, Removal>,
    private readonly windows: JobWriteWindows,
  ) {
    this.insertWindows = new LoadLinger({
      quietMs: windows.insertLingerMs,
      atLoadMs: windows.insertLingerAtLoadMs,
      fromCallsPerSecond: windows.loadInsertsPerSecond,
    });
  }

  insert(input: Insert): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const now = performance.now();
      const linger = this.insertWindows.arrived(now);
      if (this.inserts.length === 0) {
        this.insertsSince = now;
        this.insertLinger = linger;
      }
      this.inserts.push({ input, resolve, reject });
      this.schedule();
    });
  }

  remove(input: Removal): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      if (this.removals.length === 0) this.removalsSince = performance.now();
      this.removals.push({ input, resolve, reject });
      this.schedule();
    });
  }

  /** Sets the timer to the earliest close of a window now open (none while a statement is in flight: it reschedules). */
  private schedule(): void {
    if (this.inFlight) return;
    const { removalLingerMs, maxRows } = this.windows;
    let closesAt = Number.POSITIVE_INFINITY;
    if (this.inserts.length > 0) closesAt = Math.min(closesAt, this.insertsSince + this.insertLinger);
    if (this.removals.length > 0) closesAt = Math.min(closesAt, this.removalsSince + removalLingerMs);
    if (this.inserts.length >= maxRows || this.removals.length >= maxRows) closesAt = 0;
    if (closesAt === Number.POSITIVE_INFINITY || closesAt >= this.timerAt) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = closesAt;
    this.timer = setTimeout(() => void this.flush(), Math.max(0, closesAt - performance.now()));
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const { maxRows } = this.windows;
    const inserts = this.inserts.splice(0, maxRows);
    const removals = this.removals.splice(0, maxRows);
    // Writes left behind by a full window keep the time their window opened: they wait no longer than they would have.
    this.inFlight = true;
    try {
      await this.runTogether(inserts, removals);
    } finally {
      this.inFlight = false;
      this.schedule();
    }
  }

  private async runTogether(inserts: Waiting<Insert>[], removals: Waiting<Removal>[]): Promise<void> {
    try {
      const { inserted, removed } = await this.run(
        inserts.map((waiting) => waiting.input),
        removals.map((waiting) => waiting.input),
      );
      inserts.forEach((waiting, index) => waiting.resolve(inserted[index]));
      removals.forEach((waiting, index) => waiting.resolve(removed[index]));
    } catch (error) {
      if (inserts.length + removals.length === 1) {
        for (const waiting of [...inserts, ...removals]) waiting.reject(error);
        return;
      }
      for (const waiting of inserts)
        await this.runAlone(waiting, (input) => this.run([input], []).then((out) => out.inserted[0]));
      for (const waiting of removals)
        await this.runAlone(waiting, (input) => this.run([], [input]).then((out) => out.removed[0]));
    }
  }

  private async runAlone<In>(waiting: Waiting<In>, run: (input: In) => Promise<boolean>): Promise<void> {
    try {
      waiting.resolve(await run(waiting.input));
    } catch (error) {
      waiting.reject(error);
    }
  }
}
