import type { LogEntry } from '@lanner/frames';

/** Flush a batch after this long (live enough for a UI, few enough frames for the stream). */
export const LOG_BATCH_INTERVAL_MS = 100;
/** ...or as soon as it holds this many lines. */
export const LOG_BATCH_MAX_ENTRIES = 200;
/** ...or this many bytes of messages (lines are capped at 64 KiB each, far below the 4 MiB frame). */
export const LOG_BATCH_MAX_BYTES = 1024 * 1024;
/** Lines kept while no stream is open; beyond it the oldest are dropped (and counted). */
export const LOG_BACKLOG_MAX_ENTRIES = 10_000;

/**
 * Batches the log lines of running jobs into LogBatch frames, by time or size.
 * `send` returns false when no stream takes the batch: the lines stay in a
 * bounded backlog and go out with the next flush after a reconnect.
 */
export class LogBatcher {
  private entries: LogEntry[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private dropped = 0;

  constructor(
    private readonly send: (entries: LogEntry[]) => boolean,
    private readonly onDropped: (count: number) => void,
  ) {}

  add(entry: LogEntry): void {
    this.entries.push(entry);
    this.bytes += Buffer.byteLength(entry.message);
    if (this.entries.length > LOG_BACKLOG_MAX_ENTRIES) {
      const removed = this.entries.splice(0, this.entries.length - LOG_BACKLOG_MAX_ENTRIES);
      this.dropped += removed.length;
      this.bytes = this.entries.reduce((sum, kept) => sum + Buffer.byteLength(kept.message), 0);
    }
    if (this.entries.length >= LOG_BATCH_MAX_ENTRIES || this.bytes >= LOG_BATCH_MAX_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), LOG_BATCH_INTERVAL_MS);
  }

  /** Sends what is pending now, in frames of at most LOG_BATCH_MAX_ENTRIES / LOG_BATCH_MAX_BYTES. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dropped > 0) {
      this.onDropped(this.dropped);
      this.dropped = 0;
    }
    while (this.entries.length > 0) {
      let count = 0;
      let size = 0;
      while (count < this.entries.length && count < LOG_BATCH_MAX_ENTRIES && (count === 0 || size < LOG_BATCH_MAX_BYTES)) {
        size += Buffer.byteLength(this.entries[count].message);
        count += 1;
      }
      const batch = this.entries.slice(0, count);
      if (!this.send(batch)) return;
      this.entries = this.entries.slice(count);
      this.bytes -= size;
    }
  }

  get pending(): number {
    return this.entries.length;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
