/**
 * The pauses in a JVM's GC log, written with `-Xlog:gc:file=<path>:timemillis`
 * (the local broker's, see kafka-local.ts), so a bench can tell how long the
 * broker stood still while it measured. Each pause line carries the time it
 * ended (ms since the epoch) and its length:
 * `[1764561918123ms] GC(12) Pause Young (Allocation Failure) 120M->20M(380M) 14.123ms`.
 */

/** The `-Xlog` option that writes such a log (two files of at most 10 MB, the older one rotated out). */
export function gcLogOption(file: string): string {
  return `-Xlog:gc:file=${file}:timemillis:filecount=2,filesize=10m`;
}

export type GcPauseKind = 'young' | 'full' | 'other';

export interface GcPause {
  readonly kind: GcPauseKind;
  /** When it began, in ms since the epoch. */
  readonly startedAtMs: number;
  readonly durationMs: number;
}

export interface GcPauseSummary {
  readonly count: number;
  readonly totalMs: number;
  readonly maxMs: number;
}

const PAUSE_LINE = /^\[(\d+)ms\] GC\(\d+\) Pause (\S+).* (\d+(?:\.\d+)?)ms$/;

/** Every pause the log records; lines of any other kind are skipped. */
export function gcPauses(log: string): GcPause[] {
  const pauses: GcPause[] = [];
  for (const line of log.split('\n')) {
    const match = PAUSE_LINE.exec(line.trim());
    if (!match) continue;
    const durationMs = Number(match[3]);
    const kind: GcPauseKind = match[2] === 'Young' ? 'young' : match[2] === 'Full' ? 'full' : 'other';
    pauses.push({ kind, startedAtMs: Number(match[1]) - durationMs, durationMs });
  }
  return pauses;
}

/** The pauses of each kind that began from `fromMs` (inclusive) to `toMs` (exclusive). */
export function gcPausesBetween(pauses: readonly GcPause[], fromMs: number, toMs: number): Record<GcPauseKind, GcPauseSummary> {
  const summary = (kind: GcPauseKind): GcPauseSummary => {
    const durations = pauses
      .filter((pause) => pause.kind === kind && pause.startedAtMs >= fromMs && pause.startedAtMs < toMs)
      .map((pause) => pause.durationMs);
    return {
      count: durations.length,
      totalMs: round1(durations.reduce((sum, ms) => sum + ms, 0)),
      maxMs: round1(Math.max(0, ...durations)),
    };
  };
  return { young: summary('young'), full: summary('full'), other: summary('other') };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
