import { gcLogOption, gcPauses, gcPausesBetween } from './jvm-gc-log';

// Lines as JDK 17 writes them with -Xlog:gc:...:timemillis (serial, then G1).
const SERIAL = `[1796098957793ms] Using Serial
[1796098958239ms] GC(0) Pause Young (Allocation Failure) 17M->4M(61M) 9.568ms
[1796098958286ms] GC(1) Pause Young (Allocation Failure) 21M->19M(61M) 12.285ms
[1796098959300ms] GC(2) Pause Full (Allocation Failure) 60M->30M(61M) 48.000ms
`;
const G1 = `[1796098958368ms] Using G1
[1796098958615ms] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 6M->3M(64M) 4.917ms
[1796098958700ms] GC(1) Pause Young (Concurrent Start) (G1 Evacuation Pause) 40M->28M(64M) 7.379ms
[1796098958705ms] GC(2) Concurrent Mark Cycle
[1796098958750ms] GC(2) Pause Remark 30M->30M(64M) 1.500ms
[1796098958760ms] GC(2) Pause Cleanup 30M->30M(64M) 0.100ms
[1796098958790ms] GC(2) Concurrent Mark Cycle 85.000ms`;

describe('JVM GC log pauses', () => {
  it('writes a log with each line stamped in ms since the epoch', () => {
    expect(gcLogOption('/tmp/kafka/gc.log')).toBe('-Xlog:gc:file=/tmp/kafka/gc.log:timemillis:filecount=2,filesize=10m');
  });

  it('reads each pause, its kind and when it began (the line is written when it ends)', () => {
    expect(gcPauses(SERIAL)).toEqual([
      { kind: 'young', startedAtMs: 1796098958239 - 9.568, durationMs: 9.568 },
      { kind: 'young', startedAtMs: 1796098958286 - 12.285, durationMs: 12.285 },
      { kind: 'full', startedAtMs: 1796098959300 - 48, durationMs: 48 },
    ]);
  });

  it("counts G1's remark and cleanup as other pauses, and never a concurrent phase", () => {
    const kinds = gcPauses(G1).map((pause) => [pause.kind, pause.durationMs]);
    expect(kinds).toEqual([
      ['young', 4.917],
      ['young', 7.379],
      ['other', 1.5],
      ['other', 0.1],
    ]);
  });

  it('sums the pauses that began within a window, per kind', () => {
    const pauses = gcPauses(SERIAL);
    expect(gcPausesBetween(pauses, 1796098958200, 1796098958280)).toEqual({
      young: { count: 2, totalMs: 21.9, maxMs: 12.3 },
      full: { count: 0, totalMs: 0, maxMs: 0 },
      other: { count: 0, totalMs: 0, maxMs: 0 },
    });
    expect(gcPausesBetween(pauses, 1796098958280, 1796098960000).full).toEqual({ count: 1, totalMs: 48, maxMs: 48 });
  });
});
