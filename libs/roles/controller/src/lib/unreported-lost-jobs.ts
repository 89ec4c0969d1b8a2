import { jobMessageId } from '@lanner/frames';

/** A running-job row of this controller, as the periodic listing gives it (no payload). */
export interface RunningJobOfController {
  readonly taskRunId: string;
  readonly attempt: number;
  readonly workerId: string;
}

/**
 * The running-job rows of this controller that no worker stream here holds:
 * a stream ended and its lost report could not be published (the row was put
 * back), or the check after the stream's end failed. While this controller
 * runs the liveness coordinator leaves its rows alone, so they are reported
 * lost again from here.
 *
 * A row is due only once it has been seen unheld, pass after pass, for at
 * least `quietMs` (more than the adoption grace): a stream that just ended
 * keeps its jobs for adoption, and a job being recorded or adopted has its
 * row a moment before a stream holds it. Time is an argument. Pure.
 */
export class UnreportedLostJobs {
  /** Since when each unheld row has been seen, by task run + attempt. */
  private readonly unheldSince = new Map<string, number>();

  constructor(private readonly quietMs: number) {}

  /**
   * One reconciliation pass: `rows` are all of this controller's rows,
   * `heldKeys` the jobs (`jobMessageId`) its open streams held before the rows
   * were read. Returns the rows to report lost now; a row forgotten by the
   * store or held again starts over.
   */
  due(rows: readonly RunningJobOfController[], heldKeys: ReadonlySet<string>, now: number): RunningJobOfController[] {
    const seen = new Set<string>();
    const due: RunningJobOfController[] = [];
    for (const row of rows) {
      const key = jobMessageId(row.taskRunId, row.attempt);
      if (heldKeys.has(key)) continue;
      seen.add(key);
      const since = this.unheldSince.get(key);
      if (since === undefined) this.unheldSince.set(key, now);
      else if (now - since >= this.quietMs) due.push(row);
    }
    for (const key of this.unheldSince.keys()) if (!seen.has(key)) this.unheldSince.delete(key);
    return due;
  }

  get tracked(): number {
    return this.unheldSince.size;
  }
}
