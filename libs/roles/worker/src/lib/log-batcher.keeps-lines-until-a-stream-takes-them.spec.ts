import { LogLevel, type LogEntry } from '@lanner/frames';
import { LOG_BATCH_MAX_ENTRIES, LogBatcher } from './log-batcher';

const line = (n: number): LogEntry => ({
  taskRunId: 'tr',
  attempt: 1,
  level: LogLevel.INFO,
  timestamp: new Date(0),
  message: `line ${n}`,
});

describe('log batching', () => {
  it('sends a full batch at once, in order, without waiting for the timer', () => {
    const sent: LogEntry[][] = [];
    const batcher = new LogBatcher(
      (entries) => (sent.push(entries), true),
      () => undefined,
    );
    for (let n = 0; n < LOG_BATCH_MAX_ENTRIES; n += 1) batcher.add(line(n));
    batcher.stop();
    expect(sent).toHaveLength(1);
    expect(sent[0].map((entry) => entry.message)).toEqual(Array.from({ length: LOG_BATCH_MAX_ENTRIES }, (_, n) => `line ${n}`));
  });

  it('keeps the lines while no stream takes them and sends them with the next flush', () => {
    let streamOpen = false;
    const sent: string[] = [];
    const batcher = new LogBatcher(
      (entries) => streamOpen && (sent.push(...entries.map((entry) => entry.message)), true),
      () => undefined,
    );
    batcher.add(line(1));
    batcher.add(line(2));
    batcher.flush();
    expect(sent).toEqual([]);
    expect(batcher.pending).toBe(2);

    streamOpen = true;
    batcher.flush();
    expect(sent).toEqual(['line 1', 'line 2']);
    expect(batcher.pending).toBe(0);
  });
});
